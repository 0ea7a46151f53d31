package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate/internal/sqlstore"
)

// The statements of a recovery (sqlstore.RecoverSQL). Lists are JSON arrays; ?4 of
// Redeliver and Missing is the subscription's filter, and an empty one accepts every
// type.
const (
	// The single writer keeps the subscription as it is read until the commit.
	lockRecovered = selectWebhook
	redeliver     = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?5,
		leased_until = NULL, updated_at = ?5
		WHERE subscription_id = ?1 AND account_id = ?2 AND status IN ('succeeded', 'failed')
			AND event_type <> 'webhook.subscription.disabled'
			AND (json_array_length(?4) = 0 OR event_type IN (SELECT value FROM json_each(?4)))
			AND event_id IN (SELECT id FROM events WHERE account_id = ?2 AND created_at >= ?3)`
	selectUndelivered = `SELECT ` + eventColumns + ` FROM events e
		WHERE e.account_id = ?2 AND e.created_at >= ?3
			AND e.type <> 'webhook.subscription.disabled'
			AND (json_array_length(?4) = 0 OR e.type IN (SELECT value FROM json_each(?4)))
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
				WHERE d.subscription_id = ?1 AND d.event_id = e.id)
		ORDER BY e.seq`
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
var recoverSQL = sqlstore.RecoverSQL{Lock: lockRecovered, Redeliver: redeliver, Missing: selectUndelivered, Insert: insertRecovered}

// RecoverWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) RecoverWebhookDeliveries(ctx context.Context, accountID, webhookID string, since, now time.Time) (int, error) {
	return sqlstore.RecoverWebhookDeliveries(ctx, s.db, &recoverSQL, accountID, webhookID, since, now)
}
