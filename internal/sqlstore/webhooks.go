package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// The flows of webhook subscriptions.

// WebhookNotFound is the public message of a missing subscription, including one of
// another account.
const WebhookNotFound = "webhook subscription not found"

// errWebhookInactive is the CodeConflict of an operation that needs an active
// subscription.
var errWebhookInactive = &skygate.Error{
	Code:    skygate.CodeConflict,
	Message: "the webhook subscription is inactive; enable it (POST /api/v1/b2b/webhooks/{webhookID}/enable), change its URL or rotate its secret to reactivate it",
}

// errFilteredOut is the CodeConflict of a test event that the subscription's filter
// does not accept.
func errFilteredOut(typ string) error {
	return skygate.Errorf(skygate.CodeConflict,
		"the webhook subscription's event_types do not include %s; add it to event_types to send test events", typ)
}

// CreateWebhook is skygate.WebhookStore's CreateWebhook with insert, which takes the
// columns ScanWebhook reads. Any unique violation is the account's existing
// subscription: the id is random, so only the account_id constraint can clash. It
// normalises w's times to the stored precision.
func CreateWebhook(ctx context.Context, db *DB, insert string, w *skygate.WebhookSubscription) error {
	w.CreatedAt, w.UpdatedAt = UTC(w.CreatedAt), UTC(w.UpdatedAt)
	w.PreviousValidUntil, w.FailingSince = utcPtr(w.PreviousValidUntil), utcPtr(w.FailingSince)
	w.DisabledAt = utcPtr(w.DisabledAt)
	if w.EventTypes == nil {
		w.EventTypes = []string{}
	}
	var previous any
	if w.PreviousSecret != nil {
		previous = w.PreviousSecret
	}
	types, err := JSONText(w.EventTypes)
	if err != nil {
		return err
	}
	_, err = db.Write.ExecContext(ctx, insert,
		w.ID, w.AccountID, w.URL, w.Active, NonNil(w.Secret), previous,
		db.NullTime(w.PreviousValidUntil), db.NullTime(w.FailingSince), db.Time(w.CreatedAt), db.Time(w.UpdatedAt),
		types, db.NullTime(w.DisabledAt), w.DisabledReason)
	if err != nil && db.Classify(err) == UniqueViolation {
		return &skygate.Error{
			Code:    skygate.CodeWebhookExists,
			Message: "the account already has a webhook subscription; change its URL or delete it first",
			Err:     err,
		}
	}
	return db.Interpret(Outcome{Op: "create webhook", NotFound: AccountNotFound}, err)
}

// CreateWebhookTestEvent is skygate.WebhookStore's CreateWebhookTestEvent: inside one
// transaction, selectWebhook reads the subscription (account_id, id), the engine's
// Events appends e with its delivery, and deliveryOfEvent reads the delivery
// (subscription_id, event_id; the columns of ScanDelivery).
func CreateWebhookTestEvent(ctx context.Context, db *DB, selectWebhook, deliveryOfEvent, accountID, webhookID string, e *skygate.Event) (*skygate.WebhookDelivery, error) {
	if e.AccountID != accountID {
		return nil, fmt.Errorf("%s: test event of account %q written for account %q", db.Engine, e.AccountID, accountID)
	}
	var d *skygate.WebhookDelivery
	err := db.InTx(ctx, func(tx *Tx) error {
		w, err := ScanWebhook(tx.QueryRowContext(ctx, selectWebhook, accountID, webhookID))
		if err != nil {
			return err
		}
		if !w.Active {
			return errWebhookInactive
		}
		if !w.Accepts(e.Type) {
			return errFilteredOut(e.Type)
		}
		if err := db.Events(ctx, tx, []*skygate.Event{e}); err != nil {
			return err
		}
		d, _, err = ScanDelivery(tx.QueryRowContext(ctx, deliveryOfEvent, webhookID, e.ID))
		if errors.Is(err, sql.ErrNoRows) {
			// Deactivated between the read and the fan-out.
			return errWebhookInactive
		}
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "create webhook test event", NotFound: WebhookNotFound}, err)
	}
	d.Attempts = []*skygate.WebhookAttempt{}
	return d, nil
}

// SetWebhookEventTypes is skygate.WebhookStore's SetWebhookEventTypes with update
// (event_types as JSON text, updated_at, account_id, id; returning ScanWebhook's
// columns).
func SetWebhookEventTypes(ctx context.Context, db *DB, update, accountID, webhookID string, types []string, now time.Time) (*skygate.WebhookSubscription, error) {
	if types == nil {
		types = []string{}
	}
	text, err := JSONText(types)
	if err != nil {
		return nil, err
	}
	return WriteRow(ctx, db, Outcome{Op: "set webhook event types", NotFound: WebhookNotFound},
		nil, ScanWebhook, update, text, db.Time(UTC(now)), accountID, webhookID)
}

// EnableWebhook is skygate.WebhookStore's EnableWebhook: enable (updated_at,
// account_id, id; returning ScanWebhook's columns) changes an inactive subscription,
// and selectWebhook (account_id, id) reads one that enable left alone, in one
// transaction.
func EnableWebhook(ctx context.Context, db *DB, enable, selectWebhook, accountID, webhookID string, now time.Time) (*skygate.WebhookSubscription, error) {
	var w *skygate.WebhookSubscription
	err := db.InTx(ctx, func(tx *Tx) error {
		var err error
		w, err = ScanWebhook(tx.QueryRowContext(ctx, enable, db.Time(UTC(now)), accountID, webhookID))
		if errors.Is(err, sql.ErrNoRows) {
			w, err = ScanWebhook(tx.QueryRowContext(ctx, selectWebhook, accountID, webhookID))
		}
		return err
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "enable webhook", NotFound: WebhookNotFound}, err)
	}
	return w, nil
}
