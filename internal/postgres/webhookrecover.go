package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate/internal/sqlstore"
)

// The statements of a recovery (sqlstore.RecoverSQL). $4 of Redeliver and Missing is
// the subscription's filter as text[]; an empty one accepts every type.
const (
	// lockRecovered keeps the subscription from being deleted until the commit, as
	// the fan-out does, so the new deliveries' foreign key holds. It does not block a
	// concurrent disable or PATCH: a dispatcher completing a delivery of this
	// subscription locks the delivery, then the subscription, and a stronger lock here
	// would let the two wait for each other. A recovery that meets a disable leaves its
	// deliveries parked, as any pending delivery is.
	lockRecovered = selectWebhook + ` FOR KEY SHARE`
	redeliver     = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $5,
		leased_until = NULL, updated_at = $5
		WHERE subscription_id = $1 AND account_id = $2 AND status IN ('succeeded', 'failed')
			AND event_type <> 'webhook.subscription.disabled'
			AND (cardinality($4::text[]) = 0 OR event_type = ANY($4::text[]))
			AND event_id IN (SELECT id FROM events WHERE account_id = $2 AND created_at >= $3)`
	selectUndelivered = `SELECT ` + eventColumns + ` FROM events e
		WHERE e.account_id = $2 AND e.created_at >= $3
			AND e.type <> 'webhook.subscription.disabled'
			AND (cardinality($4::text[]) = 0 OR e.type = ANY($4::text[]))
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
				WHERE d.subscription_id = $1 AND d.event_id = e.id)
		ORDER BY e.seq`
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
var recoverSQL = sqlstore.RecoverSQL{Lock: lockRecovered, Redeliver: redeliver, Missing: selectUndelivered, Insert: insertRecovered}

// RecoverWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) RecoverWebhookDeliveries(ctx context.Context, accountID, webhookID string, since, now time.Time) (int, error) {
	return sqlstore.RecoverWebhookDeliveries(ctx, s.db, &recoverSQL, accountID, webhookID, since, now)
}
