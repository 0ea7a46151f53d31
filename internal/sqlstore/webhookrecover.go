package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// The recovery of a subscription's deliveries (skygate.WebhookStore's
// RecoverWebhookDeliveries).

// RecoverSQL is an engine's statements of a recovery. types is the subscription's
// filter in the engine's Strings form (empty: every type); since and now are stored
// times; lists are in the Strings form. Every statement leaves out
// webhook.subscription.disabled events.
type RecoverSQL struct {
	// Lock (account_id, id) reads a subscription in ScanWebhook's columns and keeps it
	// from being deleted until the transaction ends.
	Lock string
	// Candidates (subscription_id, account_id, since, types, limit) reads at most
	// limit of the account's events created at or after since whose type the filter
	// accepts and whose delivery to the subscription is not pending (it succeeded, it
	// failed, or there is none), ordered by created_at then seq: ScanEvent's columns,
	// then the id of the delivery (NULL when none).
	Candidates string
	// Redeliver (subscription_id, account_id, delivery ids, now) makes those of the
	// subscription's deliveries that succeeded or failed pending and due at now,
	// without a lease.
	Redeliver string
	// Insert (delivery ids, event ids, event types, bodies, subscription_id,
	// account_id, now) inserts one pending delivery per element, due and created at
	// now; a delivery that exists already is left.
	Insert string
}

// recoverable is an event a recovery may make due, with its delivery's id ("" when
// it has none).
type recoverable struct {
	event    *skygate.Event
	delivery string
}

// scanRecoverable reads a row of RecoverSQL.Candidates.
func scanRecoverable(row Scanner) (*recoverable, error) {
	var (
		pos      sql.NullInt64
		data     []byte
		delivery sql.NullString
		e        skygate.Event
	)
	if err := row.Scan(&pos, &e.ID, &e.AccountID, &e.Type, &data, timeCol{&e.CreatedAt},
		&e.APIVersion, &e.Livemode, &e.OrderingKey, &delivery); err != nil {
		return nil, err
	}
	e.Seq, e.Data = pos.Int64, data
	return &recoverable{event: &e, delivery: delivery.String}, nil
}

// RecoverWebhookDeliveries is skygate.WebhookStore's RecoverWebhookDeliveries, in
// one transaction: Lock, Candidates (one more than limit, to learn whether events
// remain and where they start), then Redeliver for those with a delivery and Insert
// with the envelope (EventBody) of those without. At most limit+1 events are held in
// memory. The deliveries made due count in tx.Delivered, so the commit wakes the
// engine's OnDeliveries function.
func RecoverWebhookDeliveries(ctx context.Context, db *DB, q *RecoverSQL, accountID, webhookID string, since, now time.Time, limit int) (*skygate.WebhookRecovery, error) {
	since, now = UTC(since), UTC(now)
	r := &skygate.WebhookRecovery{}
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
		found, err := QueryAll(ctx, tx, scanRecoverable, q.Candidates, w.ID, accountID, db.Time(since), types, limit+1)
		if err != nil {
			return err
		}
		batch, next := recoveryBatch(found, limit)
		r.Next = next
		var redeliver []string
		var missing []*skygate.Event
		for _, c := range batch {
			if c.delivery != "" {
				redeliver = append(redeliver, c.delivery)
			} else {
				missing = append(missing, c.event)
			}
		}
		if len(redeliver) > 0 {
			ids, err := db.Strings(redeliver)
			if err != nil {
				return err
			}
			n, err := affected(tx.ExecContext(ctx, q.Redeliver, w.ID, accountID, ids, db.Time(now)))
			if err != nil {
				return err
			}
			r.Enqueued += int(n)
		}
		if len(missing) > 0 {
			n, err := insertRecovered(ctx, db, q, tx, w, missing, now)
			if err != nil {
				return err
			}
			r.Enqueued += int(n)
		}
		tx.Delivered += r.Enqueued
		return nil
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "recover webhook deliveries", NotFound: WebhookNotFound}, err)
	}
	return r, nil
}

// recoveryBatch picks from found (at most limit+1 events in creation order) those a
// recovery of limit handles, and the creation time a later recovery continues from
// (nil when found is all there is). A recovery that would stop in the middle of the
// events of one creation time stops before them instead, so that none of them is
// made due twice if the dispatcher finishes it before the next call; only when they
// alone fill the limit does it take limit of them, and the next call, starting at
// the same time, finds those pending and leaves them.
func recoveryBatch(found []*recoverable, limit int) ([]*recoverable, *time.Time) {
	if len(found) <= limit {
		return found, nil
	}
	next := found[limit].event.CreatedAt
	cut := limit
	for cut > 0 && found[cut-1].event.CreatedAt.Equal(next) {
		cut--
	}
	if cut == 0 {
		cut = limit
	}
	return found[:cut], &next
}

// affected returns the rows a statement changed.
func affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
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
	return affected(tx.ExecContext(ctx, q.Insert, append(args, w.ID, w.AccountID, db.Time(now))...))
}
