package postgres

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
		WHERE d.subscription_id = $1 AND d.event_id = $2`
	selectDelivery = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = $1 AND d.subscription_id = $2 AND d.id = $3`
	listDeliveries = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = $1 AND d.subscription_id = $2
		ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`
	countDeliveries = `SELECT count(*) FROM webhook_deliveries
		WHERE account_id = $1 AND subscription_id = $2`
	selectAttemptsOf = `SELECT delivery_id, attempt, at, status_code, latency_ms, error
		FROM webhook_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt`

	lockRetried = `SELECT ` + deliveryColumns + `, s.active FROM webhook_deliveries d
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.account_id = $1 AND d.subscription_id = $2 AND d.id = $3
		FOR UPDATE OF d`
	retryDelivery = `UPDATE webhook_deliveries SET status = 'pending',
		next_attempt_at = $1, leased_until = NULL, updated_at = $1 WHERE id = $2`

	claimDeliveries = `SELECT ` + deliveryColumns + `, d.body,
			s.id, s.account_id, s.url, s.active, s.secret, s.previous_secret,
			s.previous_valid_until, s.failing_since, s.created_at, s.updated_at
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND s.active
		ORDER BY d.next_attempt_at, d.id LIMIT $2
		FOR UPDATE OF d SKIP LOCKED`
	leaseDeliveries = `UPDATE webhook_deliveries SET attempts = attempts + 1,
		next_attempt_at = $1, leased_until = $1, updated_at = $2 WHERE id = ANY($3)`

	// lockWebhookKeys takes a key-share lock on the subscriptions, in id order, and
	// returns those that still exist.
	lockWebhookKeys = `SELECT id FROM webhook_subscriptions WHERE id = ANY($1)
		ORDER BY id FOR KEY SHARE`
	insertAttempt = `INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING`
	// The conditions make the update belong to the attempt that holds the lease: a
	// dispatcher whose lease ended and whose delivery was claimed again (attempts
	// moved on) or retried by hand (lease cleared) only logs its attempt.
	completeDelivery = `UPDATE webhook_deliveries SET status = $1, next_attempt_at = $2,
		leased_until = NULL, last_status_code = $3, last_error = $4, updated_at = $5
		WHERE id = $6 AND status = 'pending' AND attempts = $7 AND leased_until IS NOT NULL`
	markWebhookHealthy = `UPDATE webhook_subscriptions SET failing_since = NULL
		WHERE id = $1 AND failing_since IS NOT NULL`
	markWebhookFailing = `UPDATE webhook_subscriptions SET failing_since = $1
		WHERE id = $2 AND failing_since IS NULL`
	disableWebhook = `UPDATE webhook_subscriptions SET active = false, updated_at = $1
		WHERE id = $2 AND active`
	disableFailingWebhook = `UPDATE webhook_subscriptions SET active = false, updated_at = $1
		WHERE id = $2 AND active AND failing_since <= $3`
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
	attempts, err := sqlstore.QueryAll(ctx, tx, sqlstore.ScanAttempt, selectAttemptsOf, ids)
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

// inReadTx runs fn in a read-only repeatable-read transaction, so that its queries
// see one snapshot.
func (s *Store) inReadTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
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
		d, leasedUntil, err = sqlstore.ScanDelivery(tx.QueryRowContext(ctx, lockRetried, accountID, webhookID, deliveryID), &active)
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
			if _, err := tx.ExecContext(ctx, retryDelivery, now, d.ID); err != nil {
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

// ClaimWebhookDeliveries implements skygate.WebhookStore. Claimers skip the deliveries
// others hold.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*skygate.WebhookJob, error) {
	if limit <= 0 {
		return []*skygate.WebhookJob{}, nil
	}
	now, leaseUntil = sqlstore.UTC(now), sqlstore.UTC(leaseUntil)
	var jobs []*skygate.WebhookJob
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		jobs, err = sqlstore.QueryAll(ctx, tx, scanJob, claimDeliveries, now, limit)
		if err != nil || len(jobs) == 0 {
			return err
		}
		ids := make([]string, len(jobs))
		for i, j := range jobs {
			ids[i] = j.Delivery.ID
		}
		if _, err := tx.ExecContext(ctx, leaseDeliveries, leaseUntil, now, ids); err != nil {
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

// CompleteWebhookDeliveries implements skygate.WebhookStore. Locks are taken in one
// global order so that concurrent completions (several replicas) and deletes of a
// subscription cannot deadlock: first a key-share lock on every subscription involved,
// by id, which a concurrent delete waits for or wins (its outcomes are then skipped);
// then the delivery rows, by id; then the subscription rows for the failure
// bookkeeping, by id.
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
		liveIDs, err := sqlstore.QueryAll(ctx, tx, func(row sqlstore.Scanner) (id string, err error) {
			return id, row.Scan(&id)
		}, lockWebhookKeys, subs)
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
// the delivery's new state; ok reports the latter.
func completeOne(ctx context.Context, tx *sql.Tx, o *skygate.WebhookOutcome) (ok bool, err error) {
	a := o.Attempt
	at := sqlstore.UTC(a.At)
	if _, err := tx.ExecContext(ctx, insertAttempt, o.DeliveryID, a.Attempt, at, a.StatusCode, a.LatencyMS, a.Error); err != nil {
		return false, err
	}
	var next *time.Time
	if o.Status == skygate.WebhookPending {
		t := sqlstore.UTC(o.NextAttemptAt)
		next = &t
	}
	res, err := tx.ExecContext(ctx, completeDelivery,
		string(o.Status), next, a.StatusCode, a.Error, at, o.DeliveryID, a.Attempt)
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
	at := sqlstore.UTC(o.Attempt.At)
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
		_, err = tx.ExecContext(ctx, disableFailingWebhook, at, o.SubscriptionID, sqlstore.UTC(o.FailingCutoff))
	}
	return err
}
