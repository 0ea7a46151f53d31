package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// The statements of a recovery (sqlstore.RecoverSQL). $4 of Candidates is the
// subscription's filter as text[]; an empty one accepts every type.
const (
	// lockRecovered keeps the subscription from being deleted until the commit, as
	// the fan-out does, so the new deliveries' foreign key holds. It does not block a
	// concurrent disable or PATCH: a dispatcher completing a delivery of this
	// subscription locks the delivery, then the subscription, and a stronger lock here
	// would let the two wait for each other. A recovery that meets a disable leaves its
	// deliveries parked, as any pending delivery is.
	lockRecovered = selectWebhook + ` FOR KEY SHARE`
	// selectRecoverable walks the account's events from since on
	// events_account_created; the derived table keeps eventColumns unambiguous.
	selectRecoverable = `SELECT ` + eventColumns + `, delivery_id FROM (
			SELECT e.*, d.id AS delivery_id FROM events e
				LEFT JOIN webhook_deliveries d ON d.subscription_id = $1 AND d.event_id = e.id
			WHERE e.account_id = $2 AND e.created_at >= $3 AND e.type <> ` + noticeType + `
				AND (cardinality($4::text[]) = 0 OR e.type = ANY($4::text[]))
				AND (d.id IS NULL OR d.status IN ('succeeded', 'failed'))
			ORDER BY e.created_at, e.seq
			LIMIT $5
		) c
		ORDER BY created_at, seq`
	redeliver = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $4,
			leased_until = NULL, updated_at = $4
		WHERE subscription_id = $1 AND account_id = $2 AND id = ANY($3::text[])
			AND status IN ('succeeded', 'failed')`
	insertRecovered = `INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id,
			event_type, body, status, attempts, next_attempt_at, last_status_code, last_error,
			created_at, updated_at, ordering_key, event_seq)
		SELECT v.id, $5, $6, v.event_id, v.type, v.body, 'pending', 0, $7, 0, '', $7, $7,
			e.ordering_key, e.seq
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY
			AS v (id, event_id, type, body, n)
			JOIN events e ON e.id = v.event_id
		ORDER BY v.n
		ON CONFLICT (subscription_id, event_id) DO NOTHING`
)

// recoverSQL is the SQL of a recovery.
var recoverSQL = sqlstore.RecoverSQL{Lock: lockRecovered, Candidates: selectRecoverable, Redeliver: redeliver, Insert: insertRecovered}

// RecoverWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) RecoverWebhookDeliveries(ctx context.Context, accountID, webhookID string, since, now time.Time, limit int) (*skygate.WebhookRecovery, error) {
	return sqlstore.RecoverWebhookDeliveries(ctx, s.db, &recoverSQL, accountID, webhookID, since, now, limit)
}
