package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// deliveryNotFound is the public message of a missing delivery, including one of
// another account or subscription.
const deliveryNotFound = "webhook delivery not found"

// deliveryColumns are the columns sqlstore.ScanDelivery reads, of webhook_deliveries d.
const deliveryColumns = `d.id, d.subscription_id, d.account_id, d.event_id, d.event_type, d.status,
	d.attempts, d.next_attempt_at, d.leased_until, d.last_status_code, d.last_error, d.created_at,
	d.updated_at`

const (
	selectDeliveryOfEvent = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.subscription_id = ? AND d.event_id = ?`
	selectDelivery = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = ? AND d.subscription_id = ? AND d.id = ?`
	listDeliveries = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = ? AND d.subscription_id = ?
		ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?`
	countDeliveries = `SELECT count(*) FROM webhook_deliveries
		WHERE account_id = ? AND subscription_id = ?`
	// selectAttemptsOf takes the delivery ids as a JSON array.
	selectAttemptsOf = `SELECT delivery_id, attempt, at, status_code, latency_ms, error
		FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))
		ORDER BY delivery_id, attempt`

	selectRetried = `SELECT ` + deliveryColumns + `, s.active FROM webhook_deliveries d
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.account_id = ? AND d.subscription_id = ? AND d.id = ?`
	// retryDelivery takes the time twice.
	retryDelivery = `UPDATE webhook_deliveries SET status = 'pending',
		next_attempt_at = ?, leased_until = NULL, updated_at = ? WHERE id = ?`

	claimDeliveries = `SELECT ` + deliveryColumns + `, d.body,
			s.id, s.account_id, s.url, s.active, s.secret, s.previous_secret,
			s.previous_valid_until, s.failing_since, s.created_at, s.updated_at
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND s.active
		ORDER BY d.next_attempt_at, d.id LIMIT ?`
	// leaseDelivery takes the lease's end twice.
	leaseDelivery = `UPDATE webhook_deliveries SET attempts = attempts + 1,
		next_attempt_at = ?, leased_until = ?, updated_at = ? WHERE id = ?`

	// selectLiveWebhooks returns those of the subscriptions, given as a JSON array of
	// ids, that still exist.
	selectLiveWebhooks = `SELECT id FROM webhook_subscriptions
		WHERE id IN (SELECT value FROM json_each(?))`
	insertAttempt = `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id, attempt) DO NOTHING`
	// The conditions make the update belong to the attempt that holds the lease: a
	// dispatcher whose lease ended and whose delivery was claimed again (attempts
	// moved on) or retried by hand (lease cleared) only logs its attempt.
	completeDelivery = `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?,
		leased_until = NULL, last_status_code = ?, last_error = ?, updated_at = ?
		WHERE id = ? AND status = 'pending' AND attempts = ? AND leased_until IS NOT NULL`
	markWebhookHealthy = `UPDATE webhook_subscriptions SET failing_since = NULL
		WHERE id = ? AND failing_since IS NOT NULL`
	markWebhookFailing = `UPDATE webhook_subscriptions SET failing_since = ?
		WHERE id = ? AND failing_since IS NULL`
	disableWebhook = `UPDATE webhook_subscriptions SET active = FALSE, updated_at = ?
		WHERE id = ? AND active`
	disableFailingWebhook = `UPDATE webhook_subscriptions SET active = FALSE, updated_at = ?
		WHERE id = ? AND active AND failing_since <= ?`
)

// scanDelivery is sqlstore.ScanDelivery without its lease.
func scanDelivery(row sqlstore.Scanner) (*skygate.WebhookDelivery, error) {
	d, _, err := sqlstore.ScanDelivery(row)
	return d, err
}

// addAttempts reads the attempts of deliveries inside tx and appends each to its
// delivery; every delivery gets a non-nil list.
func addAttempts(ctx context.Context, tx *sql.Tx, deliveries []*skygate.WebhookDelivery) error {
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
	jsonIDs, err := sqlstore.JSONText(ids)
	if err != nil {
		return err
	}
	attempts, err := sqlstore.QueryAll(ctx, tx, sqlstore.ScanAttempt, selectAttemptsOf, jsonIDs)
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

// inReadTx runs fn in a read transaction of the reader pool, which in WAL mode sees
// one snapshot.
func (s *Store) inReadTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ListWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) ListWebhookDeliveries(ctx context.Context, accountID, webhookID string, p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
	limit, offset := sqlstore.PageArgs(p)
	var (
		deliveries []*skygate.WebhookDelivery
		total      int
	)
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		if _, err := sqlstore.ScanWebhook(tx.QueryRowContext(ctx, selectWebhook, accountID, webhookID)); err != nil {
			return err
		}
		var err error
		if deliveries, err = sqlstore.QueryAll(ctx, tx, scanDelivery, listDeliveries, accountID, webhookID, limit, offset); err != nil {
			return err
		}
		if err := addAttempts(ctx, tx, deliveries); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, countDeliveries, accountID, webhookID).Scan(&total)
	})
	if err != nil {
		return nil, 0, interpret(sqlstore.Outcome{Op: "list webhook deliveries", NotFound: webhookNotFound}, err)
	}
	return deliveries, total, nil
}

// WebhookDelivery implements skygate.WebhookStore.
func (s *Store) WebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	var d *skygate.WebhookDelivery
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		if d, err = scanDelivery(tx.QueryRowContext(ctx, selectDelivery, accountID, webhookID, deliveryID)); err != nil {
			return err
		}
		return addAttempts(ctx, tx, []*skygate.WebhookDelivery{d})
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get webhook delivery", NotFound: deliveryNotFound}, err)
	}
	return d, nil
}

// RetryWebhookDelivery implements skygate.WebhookStore.
func (s *Store) RetryWebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string, now time.Time) (*skygate.WebhookDelivery, error) {
	now = sqlstore.UTC(now)
	var d *skygate.WebhookDelivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var active bool
		var leasedUntil *time.Time
		var err error
		d, leasedUntil, err = sqlstore.ScanDelivery(tx.QueryRowContext(ctx, selectRetried, accountID, webhookID, deliveryID), &active)
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
			if _, err := tx.ExecContext(ctx, retryDelivery, micros(now), micros(now), d.ID); err != nil {
				return err
			}
			d.Status, d.NextAttemptAt, d.UpdatedAt = skygate.WebhookPending, &now, now
		}
		return addAttempts(ctx, tx, []*skygate.WebhookDelivery{d})
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "retry webhook delivery", NotFound: deliveryNotFound}, err)
	}
	return d, nil
}

// ClaimWebhookDeliveries implements skygate.WebhookStore. The single writer runs one
// claim at a time.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*skygate.WebhookJob, error) {
	if limit <= 0 {
		return []*skygate.WebhookJob{}, nil
	}
	now, leaseUntil = sqlstore.UTC(now), sqlstore.UTC(leaseUntil)
	var jobs []*skygate.WebhookJob
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		jobs, err = sqlstore.QueryAll(ctx, tx, scanJob, claimDeliveries, micros(now), limit)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			d := j.Delivery
			if _, err := tx.ExecContext(ctx, leaseDelivery, micros(leaseUntil), micros(leaseUntil), micros(now), d.ID); err != nil {
				return err
			}
			d.AttemptCount++
			d.NextAttemptAt, d.UpdatedAt = &leaseUntil, now
		}
		return nil
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "claim webhook deliveries"}, err)
	}
	return jobs, nil
}

// scanJob reads a row of claimDeliveries.
func scanJob(row sqlstore.Scanner) (*skygate.WebhookJob, error) {
	var (
		body []byte
		w    skygate.WebhookSubscription
	)
	d, _, err := sqlstore.ScanDelivery(row, &body, &w.ID, &w.AccountID, &w.URL, &w.Active, &w.Secret,
		&w.PreviousSecret, sqlstore.NullTimeCol(&w.PreviousValidUntil), sqlstore.NullTimeCol(&w.FailingSince),
		sqlstore.TimeCol(&w.CreatedAt), sqlstore.TimeCol(&w.UpdatedAt))
	if err != nil {
		return nil, err
	}
	if len(w.PreviousSecret) == 0 {
		w.PreviousSecret = nil
	}
	return &skygate.WebhookJob{Delivery: d, Subscription: &w, Body: body}, nil
}

// CompleteWebhookDeliveries implements skygate.WebhookStore. The outcomes of a
// subscription deleted before the transaction are skipped; the single writer keeps
// deletes out until it commits. The deliveries are written in id order, then the
// subscriptions' failure bookkeeping in subscription and time order.
func (s *Store) CompleteWebhookDeliveries(ctx context.Context, outcomes []*skygate.WebhookOutcome) error {
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
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		jsonSubs, err := sqlstore.JSONText(subs)
		if err != nil {
			return err
		}
		liveIDs, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (id string, err error) {
			return id, row.Scan(&id)
		}, selectLiveWebhooks, jsonSubs)
		if err != nil {
			return err
		}
		var applied []*skygate.WebhookOutcome
		for _, o := range byDelivery {
			if !slices.Contains(liveIDs, o.SubscriptionID) {
				continue
			}
			ok, err := completeOne(ctx, tx, o)
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
			if err := recordHealth(ctx, tx, o); err != nil {
				return err
			}
		}
		return nil
	})
	return interpret(sqlstore.Outcome{Op: "complete webhook deliveries"}, err)
}

// completeOne logs o's attempt and, if the attempt still holds the delivery, writes
// the delivery's new state; ok reports the latter. A delivery that no longer exists is
// skipped.
func completeOne(ctx context.Context, tx *sql.Tx, o *skygate.WebhookOutcome) (ok bool, err error) {
	a := o.Attempt
	at := sqlstore.UTC(a.At)
	if _, err := tx.ExecContext(ctx, insertAttempt, o.DeliveryID, a.Attempt, micros(at), a.StatusCode, a.LatencyMS, a.Error); err != nil {
		if classify(err) == sqlstore.ForeignKeyViolation {
			// The delivery is gone: the statement failed alone and the transaction
			// goes on without it.
			return false, nil
		}
		return false, err
	}
	var next any
	if o.Status == skygate.WebhookPending {
		next = micros(o.NextAttemptAt)
	}
	res, err := tx.ExecContext(ctx, completeDelivery,
		string(o.Status), next, a.StatusCode, a.Error, micros(at), o.DeliveryID, a.Attempt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// recordHealth applies an attempt's outcome to its subscription: a success clears the
// failure time; a failure sets it if unset and turns the subscription inactive on
// Disable (410) or when it has been failing since FailingCutoff or earlier.
func recordHealth(ctx context.Context, tx *sql.Tx, o *skygate.WebhookOutcome) error {
	at := micros(o.Attempt.At)
	if o.Status == skygate.WebhookSucceeded {
		_, err := tx.ExecContext(ctx, markWebhookHealthy, o.SubscriptionID)
		return err
	}
	if _, err := tx.ExecContext(ctx, markWebhookFailing, at, o.SubscriptionID); err != nil {
		return err
	}
	var err error
	switch {
	case o.Disable:
		_, err = tx.ExecContext(ctx, disableWebhook, at, o.SubscriptionID)
	case !o.FailingCutoff.IsZero():
		_, err = tx.ExecContext(ctx, disableFailingWebhook, at, o.SubscriptionID, micros(o.FailingCutoff))
	}
	return err
}
