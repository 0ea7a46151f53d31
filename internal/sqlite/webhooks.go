package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var _ skygate.WebhookStore = (*Store)(nil)

// webhookNotFound is the public message of a missing subscription, including one of
// another account.
const webhookNotFound = "webhook subscription not found"

// webhookColumns are the columns sqlstore.ScanWebhook reads.
const webhookColumns = `id, account_id, url, active, secret, previous_secret, previous_valid_until,
	failing_since, created_at, updated_at`

const (
	insertWebhook = `INSERT INTO webhook_subscriptions (` + webhookColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectWebhook = `SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? AND id = ?`
	listWebhooks = `SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? ORDER BY created_at, id`
	deleteWebhook = `DELETE FROM webhook_subscriptions WHERE account_id = ? AND id = ?`
	// The right-hand sides see the row as it was, so the current secret moves to
	// previous_secret in the statement that replaces it.
	rotateWebhook = `UPDATE webhook_subscriptions SET previous_secret = secret,
		secret = ?, previous_valid_until = ?, active = TRUE, failing_since = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns
	changeWebhookURL = `UPDATE webhook_subscriptions SET url = ?, active = TRUE,
		failing_since = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns
)

// errWebhookInactive is the CodeConflict of an operation that needs an active
// subscription.
var errWebhookInactive = &skygate.Error{
	Code:    skygate.CodeConflict,
	Message: "the webhook subscription is inactive; change its URL or rotate its secret to reactivate it",
}

// CreateWebhook implements skygate.WebhookStore. Any unique violation is the account's
// existing subscription: the id is random, so only the account_id constraint can clash.
// It normalises w's times to the stored precision.
func (s *Store) CreateWebhook(ctx context.Context, w *skygate.WebhookSubscription) error {
	w.CreatedAt, w.UpdatedAt = sqlstore.UTC(w.CreatedAt), sqlstore.UTC(w.UpdatedAt)
	for _, t := range []**time.Time{&w.PreviousValidUntil, &w.FailingSince} {
		if *t != nil {
			u := sqlstore.UTC(**t)
			*t = &u
		}
	}
	var previous any
	if w.PreviousSecret != nil {
		previous = w.PreviousSecret
	}
	_, err := s.write.ExecContext(ctx, insertWebhook,
		w.ID, w.AccountID, w.URL, w.Active, sqlstore.NonNil(w.Secret), previous,
		nullMicros(w.PreviousValidUntil), nullMicros(w.FailingSince), micros(w.CreatedAt), micros(w.UpdatedAt))
	if err != nil && classify(err) == sqlstore.UniqueViolation {
		return &skygate.Error{
			Code:    skygate.CodeWebhookExists,
			Message: "the account already has a webhook subscription; change its URL or delete it first",
			Err:     err,
		}
	}
	return interpret(sqlstore.Outcome{Op: "create webhook", NotFound: accountNotFound}, err)
}

// Webhook implements skygate.WebhookStore.
func (s *Store) Webhook(ctx context.Context, accountID, webhookID string) (*skygate.WebhookSubscription, error) {
	w, err := sqlstore.ScanWebhook(s.read.QueryRowContext(ctx, selectWebhook, accountID, webhookID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get webhook", NotFound: webhookNotFound}, err)
	}
	return w, nil
}

// ListWebhooks implements skygate.WebhookStore.
func (s *Store) ListWebhooks(ctx context.Context, accountID string) ([]*skygate.WebhookSubscription, error) {
	out, err := sqlstore.QueryAll(ctx, s.read, sqlstore.ScanWebhook, listWebhooks, accountID)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "list webhooks"}, err)
	}
	return out, nil
}

// DeleteWebhook implements skygate.WebhookStore. The foreign keys cascade to the
// deliveries and their attempts.
func (s *Store) DeleteWebhook(ctx context.Context, accountID, webhookID string) error {
	res, err := s.write.ExecContext(ctx, deleteWebhook, accountID, webhookID)
	if err == nil {
		err = checkAffected(res, webhookNotFound)
	}
	return interpret(sqlstore.Outcome{Op: "delete webhook", NotFound: webhookNotFound}, err)
}

// RotateWebhookSecret implements skygate.WebhookStore.
func (s *Store) RotateWebhookSecret(ctx context.Context, accountID, webhookID string, secret []byte, previousValidUntil, now time.Time) (*skygate.WebhookSubscription, error) {
	w, err := sqlstore.ScanWebhook(s.write.QueryRowContext(ctx, rotateWebhook,
		sqlstore.NonNil(secret), micros(previousValidUntil), micros(now), accountID, webhookID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "rotate webhook secret", NotFound: webhookNotFound}, err)
	}
	return w, nil
}

// ChangeWebhookURL implements skygate.WebhookStore.
func (s *Store) ChangeWebhookURL(ctx context.Context, accountID, webhookID, url string, now time.Time) (*skygate.WebhookSubscription, error) {
	w, err := sqlstore.ScanWebhook(s.write.QueryRowContext(ctx, changeWebhookURL, url, micros(now), accountID, webhookID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "change webhook url", NotFound: webhookNotFound}, err)
	}
	return w, nil
}

// CreateWebhookTestEvent implements skygate.WebhookStore.
func (s *Store) CreateWebhookTestEvent(ctx context.Context, accountID, webhookID string, e *skygate.Event) (*skygate.WebhookDelivery, error) {
	if e.AccountID != accountID {
		return nil, fmt.Errorf("sqlite: test event of account %q written for account %q", e.AccountID, accountID)
	}
	var d *skygate.WebhookDelivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		w, err := sqlstore.ScanWebhook(tx.QueryRowContext(ctx, selectWebhook, accountID, webhookID))
		if err != nil {
			return err
		}
		if !w.Active {
			return errWebhookInactive
		}
		if err := s.insertEvents(ctx, tx, []*skygate.Event{e}); err != nil {
			return err
		}
		d, err = scanDelivery(tx.QueryRowContext(ctx, selectDeliveryOfEvent, webhookID, e.ID))
		if errors.Is(err, sql.ErrNoRows) {
			// Deactivated between the read and the fan-out.
			return errWebhookInactive
		}
		return err
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "create webhook test event", NotFound: webhookNotFound}, err)
	}
	d.Attempts = []*skygate.WebhookAttempt{}
	return d, nil
}
