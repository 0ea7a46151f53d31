package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.WebhookStore = (*Store)(nil)

// noticeType is the type of the webhook.subscription.disabled notice as an SQL
// literal. Every statement that makes deliveries (the fan-out of written events, a
// recovery) leaves events of this type out, as skygate.WebhookSubscription.Accepts
// does: the notice is never delivered.
const noticeType = `'` + skygate.EventWebhookSubscriptionDisabled + `'`

// webhookColumns are the columns sqlstore.ScanWebhook reads.
const webhookColumns = `id, account_id, url, active, secret, previous_secret, previous_valid_until,
	failing_since, created_at, updated_at, event_types, disabled_at, disabled_reason`

const (
	insertWebhook = `INSERT INTO webhook_subscriptions (` + webhookColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectWebhook = `SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? AND id = ?`
	listWebhooks = `SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? ORDER BY created_at, id`
	deleteWebhook = `DELETE FROM webhook_subscriptions WHERE account_id = ? AND id = ?`
	// The right-hand sides see the row as it was, so the current secret moves to
	// previous_secret in the statement that replaces it.
	rotateWebhook = `UPDATE webhook_subscriptions SET previous_secret = secret,
		secret = ?, previous_valid_until = ?, active = TRUE, failing_since = NULL,
		disabled_at = NULL, disabled_reason = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns
	changeWebhookURL = `UPDATE webhook_subscriptions SET url = ?, active = TRUE,
		failing_since = NULL, disabled_at = NULL, disabled_reason = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns
	setWebhookEventTypes = `UPDATE webhook_subscriptions SET event_types = ?, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns
	// enableWebhook changes an inactive subscription only, so that enabling an active
	// one leaves its failure time running.
	enableWebhook = `UPDATE webhook_subscriptions SET active = TRUE, failing_since = NULL,
		disabled_at = NULL, disabled_reason = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? AND NOT active RETURNING ` + webhookColumns
)

// CreateWebhook implements skygate.WebhookStore. It normalises w's times to the
// stored precision.
func (s *Store) CreateWebhook(ctx context.Context, w *skygate.WebhookSubscription) error {
	return sqlstore.CreateWebhook(ctx, s.db, insertWebhook, w)
}

// Webhook implements skygate.WebhookStore.
func (s *Store) Webhook(ctx context.Context, accountID, webhookID string) (*skygate.WebhookSubscription, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get webhook", NotFound: sqlstore.WebhookNotFound},
		sqlstore.ScanWebhook, selectWebhook, accountID, webhookID)
}

// ListWebhooks implements skygate.WebhookStore.
func (s *Store) ListWebhooks(ctx context.Context, accountID string) ([]*skygate.WebhookSubscription, error) {
	return sqlstore.All(ctx, s.db, "list webhooks", sqlstore.ScanWebhook, listWebhooks, accountID)
}

// DeleteWebhook implements skygate.WebhookStore. The foreign keys cascade to the
// deliveries and their attempts.
func (s *Store) DeleteWebhook(ctx context.Context, accountID, webhookID string) error {
	return sqlstore.Delete(ctx, s.db, sqlstore.Outcome{Op: "delete webhook", NotFound: sqlstore.WebhookNotFound},
		nil, deleteWebhook, accountID, webhookID)
}

// RotateWebhookSecret implements skygate.WebhookStore.
func (s *Store) RotateWebhookSecret(ctx context.Context, accountID, webhookID string, secret []byte, previousValidUntil, now time.Time) (*skygate.WebhookSubscription, error) {
	return sqlstore.WriteRow(ctx, s.db, sqlstore.Outcome{Op: "rotate webhook secret", NotFound: sqlstore.WebhookNotFound},
		nil, sqlstore.ScanWebhook, rotateWebhook,
		sqlstore.NonNil(secret), s.db.Time(previousValidUntil), s.db.Time(now), accountID, webhookID)
}

// ChangeWebhookURL implements skygate.WebhookStore.
func (s *Store) ChangeWebhookURL(ctx context.Context, accountID, webhookID, url string, now time.Time) (*skygate.WebhookSubscription, error) {
	return sqlstore.WriteRow(ctx, s.db, sqlstore.Outcome{Op: "change webhook url", NotFound: sqlstore.WebhookNotFound},
		nil, sqlstore.ScanWebhook, changeWebhookURL, url, s.db.Time(now), accountID, webhookID)
}

// CreateWebhookTestEvent implements skygate.WebhookStore.
func (s *Store) CreateWebhookTestEvent(ctx context.Context, accountID, webhookID string, e *skygate.Event) (*skygate.WebhookDelivery, error) {
	return sqlstore.CreateWebhookTestEvent(ctx, s.db, selectWebhook, selectDeliveryOfEvent, accountID, webhookID, e)
}

// SetWebhookEventTypes implements skygate.WebhookStore.
func (s *Store) SetWebhookEventTypes(ctx context.Context, accountID, webhookID string, types []string, now time.Time) (*skygate.WebhookSubscription, error) {
	return sqlstore.SetWebhookEventTypes(ctx, s.db, setWebhookEventTypes, accountID, webhookID, types, now)
}

// EnableWebhook implements skygate.WebhookStore.
func (s *Store) EnableWebhook(ctx context.Context, accountID, webhookID string, now time.Time) (*skygate.WebhookSubscription, error) {
	return sqlstore.EnableWebhook(ctx, s.db, enableWebhook, selectWebhook, accountID, webhookID, now)
}
