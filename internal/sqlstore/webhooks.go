package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

var _ skygate.WebhookStore = (*Store)(nil)

const webhookColumns = `id, account_id, url, active, secret, previous_secret, previous_valid_until,
	failing_since, created_at, updated_at`

var (
	qInsertWebhook = newStmt(`INSERT INTO webhook_subscriptions (` + webhookColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qWebhook = newStmt(`SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? AND id = ?`)
	qListWebhooks = newStmt(`SELECT ` + webhookColumns + ` FROM webhook_subscriptions
		WHERE account_id = ? ORDER BY created_at, id`)
	qDeleteWebhook = newStmt(`DELETE FROM webhook_subscriptions WHERE account_id = ? AND id = ?`)
	// The right-hand sides see the row as it was, so the current secret moves to
	// previous_secret in the same statement that replaces it.
	qRotateWebhook = newStmt(`UPDATE webhook_subscriptions SET previous_secret = secret,
		secret = ?, previous_valid_until = ?, active = TRUE, failing_since = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns)
	qChangeWebhookURL = newStmt(`UPDATE webhook_subscriptions SET url = ?, active = TRUE,
		failing_since = NULL, updated_at = ?
		WHERE account_id = ? AND id = ? RETURNING ` + webhookColumns)

	// The fan-out reads the account's active subscription. On PostgreSQL FOR KEY SHARE
	// keeps the row from being deleted until the event's transaction ends, so the
	// delivery's foreign key cannot fail under a concurrent delete (which instead
	// waits, or wins first and is then skipped).
	activeWebhook       = `SELECT id FROM webhook_subscriptions WHERE account_id = ? AND active`
	activeWebhookShare  = activeWebhook + ` FOR KEY SHARE`
	qActiveWebhook      = newStmt(activeWebhook)
	qActiveWebhookShare = newStmt(activeWebhookShare)
	qInsertDelivery     = newStmt(insertDelivery + ` VALUES (` + deliveryValues("?") + `)` + onDeliveryConflict)
)

// insertDelivery, deliveryValues and onDeliveryConflict write a pending delivery:
// with the subscription's id as an argument (qInsertDelivery), or with it joined
// (createBookingSQL). deliveryValues' placeholders take deliveryArgs.
const (
	insertDelivery = `INSERT INTO webhook_deliveries (id, subscription_id, account_id,
		event_id, event_type, body, status, attempts, next_attempt_at, last_status_code, last_error,
		created_at, updated_at)`
	onDeliveryConflict = ` ON CONFLICT (subscription_id, event_id) DO NOTHING`
)

// deliveryValues is the row of a new pending delivery, subscription its subscription id.
func deliveryValues(subscription string) string {
	return `?, ` + subscription + `, ?, ?, ?, ?, 'pending', 0, ?, 0, '', ?, ?`
}

// deliveryArgs returns the arguments of deliveryValues for e's delivery: a new id,
// then sub when the subscription is an argument, then e's envelope, encoded once here
// as the body of every attempt, due at e's creation.
func (s *Store) deliveryArgs(e *skygate.Event, sub ...any) ([]any, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", e.ID, err)
	}
	created := s.time(utc(e.CreatedAt))
	args := append([]any{skygate.NewID()}, sub...)
	return append(args, e.AccountID, e.ID, e.Type, string(body), created, created, created), nil
}

// webhookNotFound is the public message of a missing subscription, including one of
// another account.
const webhookNotFound = "webhook subscription not found"

// scanWebhook reads one row of webhookColumns.
func scanWebhook(row scanner) (*skygate.WebhookSubscription, error) {
	var w skygate.WebhookSubscription
	err := row.Scan(&w.ID, &w.AccountID, &w.URL, &w.Active, &w.Secret, &w.PreviousSecret,
		nullTimeCol{&w.PreviousValidUntil}, nullTimeCol{&w.FailingSince},
		timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if len(w.PreviousSecret) == 0 {
		w.PreviousSecret = nil
	}
	return &w, nil
}

// normaliseWebhook brings w's times to the stored precision.
func normaliseWebhook(w *skygate.WebhookSubscription) {
	w.CreatedAt, w.UpdatedAt = utc(w.CreatedAt), utc(w.UpdatedAt)
	for _, t := range []**time.Time{&w.PreviousValidUntil, &w.FailingSince} {
		if *t != nil {
			u := utc(**t)
			*t = &u
		}
	}
}

// CreateWebhook implements skygate.WebhookStore. Any unique violation is the account's
// existing subscription: the id is random, so only the account_id constraint can clash.
func (s *Store) CreateWebhook(ctx context.Context, w *skygate.WebhookSubscription) error {
	normaliseWebhook(w)
	var previous any
	if w.PreviousSecret != nil {
		previous = w.PreviousSecret
	}
	_, err := s.write.ExecContext(ctx, s.q(qInsertWebhook),
		w.ID, w.AccountID, w.URL, w.Active, nonNil(w.Secret), previous,
		s.nullTime(w.PreviousValidUntil), s.nullTime(w.FailingSince),
		s.time(w.CreatedAt), s.time(w.UpdatedAt))
	if err != nil && s.d.Classify(err) == UniqueViolation {
		return &skygate.Error{
			Code:    skygate.CodeWebhookExists,
			Message: "the account already has a webhook subscription; change its URL or delete it first",
			Err:     err,
		}
	}
	return s.interpret(outcome{op: "create webhook", notFound: accountNotFound}, err)
}

// Webhook implements skygate.WebhookStore.
func (s *Store) Webhook(ctx context.Context, accountID, webhookID string) (*skygate.WebhookSubscription, error) {
	w, err := scanWebhook(s.read.QueryRowContext(ctx, s.q(qWebhook), accountID, webhookID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get webhook", notFound: webhookNotFound}, err)
	}
	return w, nil
}

// ListWebhooks implements skygate.WebhookStore.
func (s *Store) ListWebhooks(ctx context.Context, accountID string) ([]*skygate.WebhookSubscription, error) {
	rows, err := s.read.QueryContext(ctx, s.q(qListWebhooks), accountID)
	if err != nil {
		return nil, s.interpret(outcome{op: "list webhooks"}, err)
	}
	defer rows.Close()
	out := []*skygate.WebhookSubscription{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, s.interpret(outcome{op: "scan webhook"}, err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, s.interpret(outcome{op: "list webhooks"}, err)
	}
	return out, nil
}

// DeleteWebhook implements skygate.WebhookStore. The foreign keys cascade to the
// deliveries and their attempts.
func (s *Store) DeleteWebhook(ctx context.Context, accountID, webhookID string) error {
	o := outcome{op: "delete webhook", notFound: webhookNotFound}
	res, err := s.write.ExecContext(ctx, s.q(qDeleteWebhook), accountID, webhookID)
	if err != nil {
		return s.interpret(o, err)
	}
	return s.checkAffected(o, res)
}

// RotateWebhookSecret implements skygate.WebhookStore.
func (s *Store) RotateWebhookSecret(ctx context.Context, accountID, webhookID string, secret []byte, previousValidUntil, now time.Time) (*skygate.WebhookSubscription, error) {
	w, err := scanWebhook(s.write.QueryRowContext(ctx, s.q(qRotateWebhook),
		nonNil(secret), s.time(previousValidUntil), s.time(now), accountID, webhookID))
	if err != nil {
		return nil, s.interpret(outcome{op: "rotate webhook secret", notFound: webhookNotFound}, err)
	}
	return w, nil
}

// ChangeWebhookURL implements skygate.WebhookStore.
func (s *Store) ChangeWebhookURL(ctx context.Context, accountID, webhookID, url string, now time.Time) (*skygate.WebhookSubscription, error) {
	w, err := scanWebhook(s.write.QueryRowContext(ctx, s.q(qChangeWebhookURL),
		url, s.time(now), accountID, webhookID))
	if err != nil {
		return nil, s.interpret(outcome{op: "change webhook url", notFound: webhookNotFound}, err)
	}
	return w, nil
}

// errWebhookInactive is the CodeConflict of an operation that needs an active
// subscription.
var errWebhookInactive = &skygate.Error{
	Code:    skygate.CodeConflict,
	Message: "the webhook subscription is inactive; change its URL or rotate its secret to reactivate it",
}

// CreateWebhookTestEvent implements skygate.WebhookStore.
func (s *Store) CreateWebhookTestEvent(ctx context.Context, accountID, webhookID string, e *skygate.Event) (*skygate.WebhookDelivery, error) {
	if e.AccountID != accountID {
		return nil, fmt.Errorf("%s: test event of account %q written for account %q", s.d.Name, e.AccountID, accountID)
	}
	var d *skygate.WebhookDelivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		w, err := scanWebhook(tx.QueryRowContext(ctx, s.q(qWebhook), accountID, webhookID))
		if err != nil {
			return err
		}
		if !w.Active {
			return errWebhookInactive
		}
		if err := s.insertEvents(ctx, tx, []*skygate.Event{e}); err != nil {
			return err
		}
		d, err = scanDelivery(tx.QueryRowContext(ctx, s.q(qDeliveryOfEvent), webhookID, e.ID))
		if errors.Is(err, sql.ErrNoRows) {
			// Deactivated by a dispatcher between the read and the fan-out.
			return errWebhookInactive
		}
		return err
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "create webhook test event", notFound: webhookNotFound}, err)
	}
	d.Attempts = []*skygate.WebhookAttempt{}
	return d, nil
}

// enqueueDeliveries creates, inside the transaction tx that inserted events into the
// outbox, a pending delivery of each event to its account's subscription if that is
// active, due at the event's creation time. Doing it in the event's transaction is
// what makes delivery survive a crash: the event and its delivery commit together or
// not at all. The delivery stores the event's envelope (deliveryArgs) as the
// body of every attempt. insertEvents calls it for every event it writes. A
// transaction that enqueued any delivery is marked for OnDeliveries.
func (s *Store) enqueueDeliveries(ctx context.Context, tx *sql.Tx, events []*skygate.Event) error {
	lookup := s.q(qActiveWebhook)
	if s.concurrentWriters() {
		lookup = s.q(qActiveWebhookShare)
	}
	subscription := map[string]string{} // account id → active subscription id, "" for none
	enqueued := false
	for _, e := range events {
		subID, seen := subscription[e.AccountID]
		if !seen {
			err := tx.QueryRowContext(ctx, lookup, e.AccountID).Scan(&subID)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%s: find webhook of event %s: %w", s.d.Name, e.ID, err)
			}
			subscription[e.AccountID] = subID
		}
		if subID == "" {
			continue
		}
		args, err := s.deliveryArgs(e, subID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(qInsertDelivery), args...); err != nil {
			return fmt.Errorf("%s: enqueue delivery of event %s: %w", s.d.Name, e.ID, err)
		}
		enqueued = true
	}
	if enqueued {
		s.markDeliveries(tx)
	}
	return nil
}
