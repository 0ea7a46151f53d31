package sqlstore

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

// The recovery of a subscription's deliveries (skygate.WebhookStore's
// RecoverWebhookDeliveries).

// RecoverSQL is an engine's statements of a recovery. types is the subscription's
// filter in the engine's Strings form (empty: every type); since and now are stored
// times. Every statement leaves out webhook.subscription.disabled events.
type RecoverSQL struct {
	// Lock (account_id, id) reads a subscription in ScanWebhook's columns and keeps it
	// from being deleted until the transaction ends.
	Lock string
	// Redeliver (subscription_id, account_id, since, types, now) makes the
	// subscription's succeeded and failed deliveries of the account's events created
	// at or after since whose type the filter accepts pending and due at now, without
	// a lease.
	Redeliver string
	// Missing (subscription_id, account_id, since, types) reads, in ScanEvent's
	// columns and in the order of the outbox, the account's events created at or
	// after since whose type the filter accepts and that have no delivery to the
	// subscription.
	Missing string
	// Insert (delivery ids, event ids, event types, bodies, subscription_id,
	// account_id, now), the lists in the Strings form, inserts one pending delivery
	// per element, due and created at now; a delivery that exists already is left.
	Insert string
}

// RecoverWebhookDeliveries is skygate.WebhookStore's RecoverWebhookDeliveries, in
// one transaction: Lock, Redeliver, Missing, then Insert with each missing event's
// envelope (EventBody) as the body of its delivery. The missing events are held in
// memory at once; the retention window bounds them. The deliveries made due count in
// tx.Delivered, so the commit wakes the engine's OnDeliveries function.
func RecoverWebhookDeliveries(ctx context.Context, db *DB, q *RecoverSQL, accountID, webhookID string, since, now time.Time) (int, error) {
	since, now = UTC(since), UTC(now)
	var enqueued int
	err := db.InTx(ctx, func(tx *Tx) error {
		w, err := ScanWebhook(tx.QueryRowContext(ctx, q.Lock, accountID, webhookID))
		if err != nil {
			return err
		}
		if !w.Active {
			return errWebhookInactive
		}
		types, err := db.Strings(w.EventTypes)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, q.Redeliver, w.ID, accountID, db.Time(since), types, db.Time(now))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		enqueued = int(n)
		missing, err := QueryAll(ctx, tx, ScanEvent, q.Missing, w.ID, accountID, db.Time(since), types)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			if n, err = insertRecovered(ctx, db, q, tx, w, missing, now); err != nil {
				return err
			}
			enqueued += int(n)
		}
		tx.Delivered += enqueued
		return nil
	})
	if err != nil {
		return 0, db.Interpret(Outcome{Op: "recover webhook deliveries", NotFound: WebhookNotFound}, err)
	}
	return enqueued, nil
}

// insertRecovered runs Insert for events and returns the deliveries it created.
func insertRecovered(ctx context.Context, db *DB, q *RecoverSQL, tx *Tx, w *skygate.WebhookSubscription, events []*skygate.Event, now time.Time) (int64, error) {
	ids := make([]string, len(events))
	eventIDs := make([]string, len(events))
	types := make([]string, len(events))
	bodies := make([]string, len(events))
	for i, e := range events {
		body, err := EventBody(e)
		if err != nil {
			return 0, err
		}
		ids[i], eventIDs[i], types[i], bodies[i] = skygate.NewID(), e.ID, e.Type, string(body)
	}
	args := make([]any, 0, 7)
	for _, list := range [][]string{ids, eventIDs, types, bodies} {
		v, err := db.Strings(list)
		if err != nil {
			return 0, err
		}
		args = append(args, v)
	}
	res, err := tx.ExecContext(ctx, q.Insert, append(args, w.ID, w.AccountID, db.Time(now))...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
