package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// The statements of a recovery (sqlstore.RecoverSQL). Lists are JSON arrays; ?4 of
// Candidates is the subscription's filter, and an empty one accepts every type.
const (
	// The single writer keeps the subscription as it is read until the commit.
	lockRecovered = selectWebhook
	// selectRecoverable walks the account's events from since on
	// events_account_created; the derived table keeps eventColumns unambiguous.
	selectRecoverable = `SELECT ` + eventColumns + `, delivery_id FROM (
			SELECT e.*, d.id AS delivery_id FROM events e
				LEFT JOIN webhook_deliveries d ON d.subscription_id = ?1 AND d.event_id = e.id
			WHERE e.account_id = ?2 AND e.created_at >= ?3 AND e.type <> ` + noticeType + `
				AND (json_array_length(?4) = 0 OR e.type IN (SELECT value FROM json_each(?4)))
				AND (d.id IS NULL OR d.status IN ('succeeded', 'failed'))
			ORDER BY e.created_at, e.seq
			LIMIT ?5
		)
		ORDER BY created_at, seq`
	redeliver = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?4,
			leased_until = NULL, updated_at = ?4
		WHERE subscription_id = ?1 AND account_id = ?2
			AND id IN (SELECT value FROM json_each(?3))
			AND status IN ('succeeded', 'failed')`
	// The WHERE clause lets SQLite tell the upsert's ON CONFLICT from a join's ON.
	insertRecovered = `INSERT INTO webhook_deliveries (id, subscription_id, account_id, event_id,
			event_type, body, status, attempts, next_attempt_at, last_status_code, last_error,
			created_at, updated_at, ordering_key, event_seq)
		SELECT i.value, ?5, ?6, e.value, t.value, b.value, 'pending', 0, ?7, 0, '', ?7, ?7,
			ev.ordering_key, ev.seq
		FROM json_each(?1) i
			JOIN json_each(?2) e ON e.key = i.key
			JOIN events ev ON ev.id = e.value
			JOIN json_each(?3) t ON t.key = i.key
			JOIN json_each(?4) b ON b.key = i.key
		WHERE true
		ORDER BY i.key
		ON CONFLICT (subscription_id, event_id) DO NOTHING`
)

// recoverSQL is the SQL of a recovery.
var recoverSQL = sqlstore.RecoverSQL{Lock: lockRecovered, Candidates: selectRecoverable, Redeliver: redeliver, Insert: insertRecovered}

// RecoverWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) RecoverWebhookDeliveries(ctx context.Context, accountID, webhookID string, since, now time.Time, limit int) (*skygate.WebhookRecovery, error) {
	return sqlstore.RecoverWebhookDeliveries(ctx, s.db, &recoverSQL, accountID, webhookID, since, now, limit)
}
