package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// The flows of webhook deliveries: the delivery log, retries by hand, and the
// dispatcher's claims and completions.

// DeliveryNotFound is the public message of a missing delivery, including one of
// another account or subscription.
const DeliveryNotFound = "webhook delivery not found"

// DeliverySQL is an engine's statements of the delivery flows, each described by its
// arguments and what it returns. "Delivery columns" are those ScanDelivery reads; a
// list of ids is passed in the engine's Strings form.
type DeliverySQL struct {
	// Webhook reads a subscription (account_id, id) in ScanWebhook's columns.
	Webhook string
	// Delivery reads a delivery (account_id, subscription_id, id).
	Delivery string
	// List (account_id, subscription_id, LIMIT, OFFSET) reads a page of a
	// subscription's deliveries, newest first; Count (account_id, subscription_id)
	// counts them. A page of a subscription that does not exist is not found.
	List, Count string
	// Attempts (delivery ids) reads the attempts of deliveries in scanAttempt's
	// columns, by delivery and attempt.
	Attempts string
	// Retried (account_id, subscription_id, id) reads a delivery, then whether its
	// subscription is active, for a retry by hand that writes it after.
	Retried string
	// Retry (now, id) makes a delivery pending and due at now, without a lease.
	Retry string
	// Claim (now, limit) reads the oldest due pending deliveries of active
	// subscriptions: the delivery columns, the body, then the subscription in
	// ScanWebhook's columns. Lease (lease end, now, ids) counts an attempt of each
	// and leases it until the lease end.
	Claim, Lease string
	// Live (subscription ids) returns the ids of those subscriptions that exist.
	Live string
	// Attempt (delivery_id, attempt, at, status_code, latency_ms, error) logs an
	// attempt, once.
	Attempt string
	// Complete (status, next_attempt_at, last_status_code, last_error, updated_at, id,
	// attempts) writes a delivery's outcome if the attempt still holds its lease and
	// returns its ordering_key and event_seq (no row: not written).
	Complete string
	// Hold (next_attempt_at, subscription_id, ordering_key, event_seq) makes the later
	// pending deliveries of an object due no earlier than the retry of the one before
	// them, attempted ones (recovered, retried by hand) too; Release (at,
	// subscription_id, ordering_key, event_seq) makes those that were never attempted
	// due at at again, when that one has finished.
	Hold, Release string
	// Healthy (id) clears a subscription's failure time; Failing (at, id) sets it
	// when unset; Disable (at, id) deactivates a subscription (reason gone), and
	// DisableFailing (at, id, cutoff) one failing since the cutoff or earlier (reason
	// failing): both record the time and reason and return the account_id, url and
	// failing_since of a subscription they deactivated, no row otherwise.
	Healthy, Failing, Disable, DisableFailing string
	// Backlog (now) counts the pending deliveries of active subscriptions and reads
	// the earliest next_attempt_at at or before now among them, NULL when none.
	Backlog string
}

// scanDelivery is ScanDelivery without its lease.
func scanDelivery(row Scanner) (*skygate.WebhookDelivery, error) {
	d, _, err := ScanDelivery(row)
	return d, err
}

// addAttempts reads the attempts of deliveries inside tx and appends each to its
// delivery; every delivery gets a non-nil list.
func addAttempts(ctx context.Context, db *DB, q *DeliverySQL, tx Queryer, deliveries []*skygate.WebhookDelivery) error {
	byID := make(map[string]*skygate.WebhookDelivery, len(deliveries))
	ids := make([]string, 0, len(deliveries))
	for _, d := range deliveries {
		d.Attempts = []*skygate.WebhookAttempt{}
		byID[d.ID] = d
		ids = append(ids, d.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	list, err := db.Strings(ids)
	if err != nil {
		return err
	}
	attempts, err := QueryAll(ctx, tx, scanAttempt, q.Attempts, list)
	if err != nil {
		return err
	}
	for _, a := range attempts {
		if d := byID[a.DeliveryID]; d != nil {
			d.Attempts = append(d.Attempts, a)
		}
	}
	return nil
}

// ListWebhookDeliveries is skygate.WebhookStore's ListWebhookDeliveries.
func ListWebhookDeliveries(ctx context.Context, db *DB, q *DeliverySQL, accountID, webhookID string, p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
	o := Outcome{Op: "list webhook deliveries", NotFound: WebhookNotFound}
	return listPage(ctx, db, o, func(tx Queryer, deliveries []*skygate.WebhookDelivery) error {
		if _, err := ScanWebhook(tx.QueryRowContext(ctx, q.Webhook, accountID, webhookID)); err != nil {
			return err
		}
		return addAttempts(ctx, db, q, tx, deliveries)
	}, scanDelivery, q.List, q.Count, p, accountID, webhookID)
}

// WebhookDelivery is skygate.WebhookStore's WebhookDelivery.
func WebhookDelivery(ctx context.Context, db *DB, q *DeliverySQL, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	o := Outcome{Op: "get webhook delivery", NotFound: DeliveryNotFound}
	return getThen(ctx, db, o, func(tx Queryer, d *skygate.WebhookDelivery) error {
		return addAttempts(ctx, db, q, tx, []*skygate.WebhookDelivery{d})
	}, scanDelivery, q.Delivery, accountID, webhookID, deliveryID)
}

// RetryWebhookDelivery is skygate.WebhookStore's RetryWebhookDelivery.
func RetryWebhookDelivery(ctx context.Context, db *DB, q *DeliverySQL, accountID, webhookID, deliveryID string, now time.Time) (*skygate.WebhookDelivery, error) {
	now = UTC(now)
	var d *skygate.WebhookDelivery
	err := db.InTx(ctx, func(tx *Tx) error {
		var active bool
		var leasedUntil *time.Time
		var err error
		d, leasedUntil, err = ScanDelivery(tx.QueryRowContext(ctx, q.Retried, accountID, webhookID, deliveryID), &active)
		if err != nil {
			return err
		}
		switch {
		case d.Status == skygate.WebhookSucceeded:
			return skygate.Errorf(skygate.CodeConflict, "the delivery has already succeeded")
		case !active:
			return errWebhookInactive
		case d.Status == skygate.WebhookPending && leasedUntil != nil && leasedUntil.After(now):
			// In flight: its dispatcher reports soon; retrying now would send it twice.
		default:
			if _, err := tx.ExecContext(ctx, q.Retry, db.Time(now), d.ID); err != nil {
				return err
			}
			d.Status, d.NextAttemptAt, d.UpdatedAt = skygate.WebhookPending, &now, now
		}
		return addAttempts(ctx, db, q, tx, []*skygate.WebhookDelivery{d})
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "retry webhook delivery", NotFound: DeliveryNotFound}, err)
	}
	return d, nil
}

// ClaimWebhookDeliveries is skygate.WebhookStore's ClaimWebhookDeliveries: Claim
// reads the due deliveries and Lease leases them, in one transaction.
func ClaimWebhookDeliveries(ctx context.Context, db *DB, q *DeliverySQL, now, leaseUntil time.Time, limit int) ([]*skygate.WebhookJob, error) {
	if limit <= 0 {
		return []*skygate.WebhookJob{}, nil
	}
	now, leaseUntil = UTC(now), UTC(leaseUntil)
	var jobs []*skygate.WebhookJob
	err := db.InTx(ctx, func(tx *Tx) error {
		var err error
		jobs, err = QueryAll(ctx, tx, scanJob, q.Claim, db.Time(now), limit)
		if err != nil || len(jobs) == 0 {
			return err
		}
		ids := make([]string, len(jobs))
		for i, j := range jobs {
			ids[i] = j.Delivery.ID
		}
		list, err := db.Strings(ids)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q.Lease, db.Time(leaseUntil), db.Time(now), list); err != nil {
			return err
		}
		for _, j := range jobs {
			d := j.Delivery
			d.AttemptCount++
			d.NextAttemptAt, d.UpdatedAt = &leaseUntil, now
		}
		return nil
	})
	if err != nil {
		return nil, db.Interpret(Outcome{Op: "claim webhook deliveries"}, err)
	}
	return jobs, nil
}

// scanJob reads a row of Claim.
func scanJob(row Scanner) (*skygate.WebhookJob, error) {
	var (
		body []byte
		w    skygate.WebhookSubscription
	)
	dest, finish := webhookDest(&w)
	d, _, err := ScanDelivery(row, append([]any{&body}, dest...)...)
	if err != nil {
		return nil, err
	}
	finish()
	return &skygate.WebhookJob{Delivery: d, Subscription: &w, Body: body}, nil
}

// CompleteWebhookDeliveries is skygate.WebhookStore's CompleteWebhookDeliveries, in
// one transaction: Live first reads which of the subscriptions involved still exist,
// by id (the outcomes of the others are skipped); then the deliveries are written in
// id order; then the subscriptions' failure bookkeeping, by subscription and time.
// An engine with concurrent writers takes its locks in that order.
func CompleteWebhookDeliveries(ctx context.Context, db *DB, q *DeliverySQL, outcomes []*skygate.WebhookOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	byDelivery := slices.Clone(outcomes)
	slices.SortFunc(byDelivery, func(a, b *skygate.WebhookOutcome) int {
		return cmp.Or(cmp.Compare(a.DeliveryID, b.DeliveryID), cmp.Compare(a.Attempt.Attempt, b.Attempt.Attempt))
	})
	subs := make([]string, 0, len(outcomes))
	for _, o := range outcomes {
		subs = append(subs, o.SubscriptionID)
	}
	slices.Sort(subs)
	subs = slices.Compact(subs)
	err := db.InTx(ctx, func(tx *Tx) error {
		list, err := db.Strings(subs)
		if err != nil {
			return err
		}
		liveIDs, err := QueryAll(ctx, tx, func(row Scanner) (id string, err error) {
			return id, row.Scan(&id)
		}, q.Live, list)
		if err != nil {
			return err
		}
		var applied []*skygate.WebhookOutcome
		for _, o := range byDelivery {
			if !slices.Contains(liveIDs, o.SubscriptionID) {
				continue
			}
			ok, err := completeOne(ctx, db, q, tx, o)
			if err != nil {
				return err
			}
			if ok {
				applied = append(applied, o)
			}
		}
		slices.SortStableFunc(applied, func(a, b *skygate.WebhookOutcome) int {
			return cmp.Or(cmp.Compare(a.SubscriptionID, b.SubscriptionID), a.Attempt.At.Compare(b.Attempt.At))
		})
		for _, o := range applied {
			if err := recordHealth(ctx, db, q, tx, o); err != nil {
				return err
			}
		}
		return nil
	})
	return db.Interpret(Outcome{Op: "complete webhook deliveries"}, err)
}

// completeOne logs o's attempt and, if the attempt still holds the delivery, writes
// the delivery's new state; ok reports the latter. A delivery that no longer exists
// is skipped (its attempt's foreign key fails alone); an engine whose Live locks the
// subscriptions, and so their deliveries, never meets one.
func completeOne(ctx context.Context, db *DB, q *DeliverySQL, tx *Tx, o *skygate.WebhookOutcome) (ok bool, err error) {
	a := o.Attempt
	at := db.Time(a.At)
	if _, err := tx.ExecContext(ctx, q.Attempt, o.DeliveryID, a.Attempt, at, a.StatusCode, a.LatencyMS, a.Error); err != nil {
		if db.Classify(err) == ForeignKeyViolation {
			return false, nil
		}
		return false, err
	}
	var next any
	if o.Status == skygate.WebhookPending {
		next = db.Time(o.NextAttemptAt)
	}
	var (
		key string
		seq int64
	)
	err = tx.QueryRowContext(ctx, q.Complete,
		string(o.Status), next, a.StatusCode, a.Error, at, o.DeliveryID, a.Attempt).Scan(&key, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// The later deliveries of the object cannot go before this one has finished
	// (ClaimWebhookDeliveries): while it waits for a retry they are not due either,
	// so that claims do not pass over them again and again. Only a retry holds them,
	// so a delivery that finishes at its first attempt has none to release.
	switch {
	case key == "":
	case o.Status == skygate.WebhookPending:
		_, err = tx.ExecContext(ctx, q.Hold, next, o.SubscriptionID, key, seq)
	case a.Attempt > 1:
		_, err = tx.ExecContext(ctx, q.Release, at, o.SubscriptionID, key, seq)
	}
	return err == nil, err
}

// recordHealth applies an attempt's outcome to its subscription: a success clears the
// failure time; a failure sets it if unset and turns the subscription inactive on
// Disable (410) or when it has been failing since FailingCutoff or earlier, and then
// writes the account's webhook.subscription.disabled notice.
func recordHealth(ctx context.Context, db *DB, q *DeliverySQL, tx *Tx, o *skygate.WebhookOutcome) error {
	at := db.Time(o.Attempt.At)
	if o.Status == skygate.WebhookSucceeded {
		_, err := tx.ExecContext(ctx, q.Healthy, o.SubscriptionID)
		return err
	}
	if _, err := tx.ExecContext(ctx, q.Failing, at, o.SubscriptionID); err != nil {
		return err
	}
	var row *sql.Row
	reason := skygate.WebhookDisabledGone
	switch {
	case o.Disable:
		row = tx.QueryRowContext(ctx, q.Disable, at, o.SubscriptionID)
	case !o.FailingCutoff.IsZero():
		row = tx.QueryRowContext(ctx, q.DisableFailing, at, o.SubscriptionID, db.Time(o.FailingCutoff))
		reason = skygate.WebhookDisabledFailing
	default:
		return nil
	}
	data := skygate.WebhookSubscriptionDisabled{SubscriptionID: o.SubscriptionID, Reason: reason, DisabledAt: UTC(o.Attempt.At)}
	var accountID string
	err := row.Scan(&accountID, &data.URL, nullTimeCol{&data.FailingSince})
	if errors.Is(err, sql.ErrNoRows) {
		return nil // already inactive, or not failing for long enough
	}
	if err != nil {
		return err
	}
	e, err := skygate.NewEvent(accountID, skygate.EventWebhookSubscriptionDisabled, !o.SandboxDeployment, data, data.DisabledAt)
	if err != nil {
		return err
	}
	return db.Events(ctx, tx, []*skygate.Event{e})
}

// WebhookBacklog is skygate.WebhookStore's WebhookBacklog: Backlog on the read pool.
func WebhookBacklog(ctx context.Context, db *DB, q *DeliverySQL, now time.Time) (skygate.WebhookBacklog, error) {
	var (
		b   skygate.WebhookBacklog
		due *time.Time
	)
	if err := db.Read.QueryRowContext(ctx, q.Backlog, db.Time(UTC(now))).Scan(&b.Pending, nullTimeCol{&due}); err != nil {
		return skygate.WebhookBacklog{}, db.Interpret(Outcome{Op: "webhook backlog"}, err)
	}
	if due != nil {
		b.OldestDue = *due
	}
	return b, nil
}
