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

const deliveryColumns = `d.id, d.subscription_id, d.account_id, d.event_id, d.event_type, d.status,
	d.attempts, d.next_attempt_at, d.leased_until, d.last_status_code, d.last_error, d.created_at,
	d.updated_at`

const attemptColumns = `delivery_id, attempt, at, status_code, latency_ms, error`

// The claim and the retry come in two forms: engines with concurrent writers lock the
// delivery rows (and the claim skips rows that another claimer holds); SQLite's single
// writer needs no row locks and has no FOR UPDATE.
var (
	qDeliveryOfEvent = newStmt(`SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.subscription_id = ? AND d.event_id = ?`)
	qDelivery = newStmt(`SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = ? AND d.subscription_id = ? AND d.id = ?`)
	qListDeliveries = newStmt(`SELECT ` + deliveryColumns + ` FROM webhook_deliveries d
		WHERE d.account_id = ? AND d.subscription_id = ?
		ORDER BY d.created_at DESC, d.id DESC ` + limitArg + ` OFFSET ?`)
	qCountDeliveries = newStmt(`SELECT COUNT(*) FROM webhook_deliveries
		WHERE account_id = ? AND subscription_id = ?`)
	qPageAttempts = newStmt(`SELECT ` + attemptColumns + ` FROM webhook_attempts
		WHERE delivery_id IN (SELECT id FROM webhook_deliveries
			WHERE account_id = ? AND subscription_id = ?
			ORDER BY created_at DESC, id DESC ` + limitArg + ` OFFSET ?)
		ORDER BY delivery_id, attempt`)
	qAttempts = newStmt(`SELECT ` + attemptColumns + ` FROM webhook_attempts
		WHERE delivery_id = ? ORDER BY attempt`)

	retryRead = `SELECT ` + deliveryColumns + `, s.active FROM webhook_deliveries d
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.account_id = ? AND d.subscription_id = ? AND d.id = ?`
	qRetryRead       = newStmt(retryRead)
	qRetryReadLocked = newStmt(retryRead + ` FOR UPDATE OF d`)
	qRetryDelivery   = newStmt(`UPDATE webhook_deliveries SET status = 'pending',
		next_attempt_at = ?, leased_until = NULL, updated_at = ? WHERE id = ?`)

	claim = `SELECT ` + deliveryColumns + `, d.body, ` + webhookColumnsOf("s") + `
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND s.active
		ORDER BY d.next_attempt_at, d.id ` + limitArg
	qClaim       = newStmt(claim)
	qClaimLocked = newStmt(claim + ` FOR UPDATE OF d SKIP LOCKED`)
	qLease       = newStmt(`UPDATE webhook_deliveries SET attempts = attempts + 1,
		next_attempt_at = ?, leased_until = ?, updated_at = ? WHERE id = ?`)

	// Taken first when completing, before any delivery row lock (see
	// CompleteWebhookDeliveries).
	qLockWebhookKey = newStmt(`SELECT id FROM webhook_subscriptions WHERE id = ? FOR KEY SHARE`)
	qInsertAttempt  = newStmt(`INSERT INTO webhook_attempts (` + attemptColumns + `)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id, attempt) DO NOTHING`)
	// The conditions make the update belong to the attempt that holds the lease: a
	// dispatcher whose lease ended and whose delivery was claimed again (attempts
	// moved on) or retried by hand (lease cleared) only logs its attempt.
	qCompleteDelivery = newStmt(`UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?,
		leased_until = NULL, last_status_code = ?, last_error = ?, updated_at = ?
		WHERE id = ? AND status = 'pending' AND attempts = ? AND leased_until IS NOT NULL`)
	qWebhookHealthy = newStmt(`UPDATE webhook_subscriptions SET failing_since = NULL
		WHERE id = ? AND failing_since IS NOT NULL`)
	qWebhookFailing = newStmt(`UPDATE webhook_subscriptions SET failing_since = ?
		WHERE id = ? AND failing_since IS NULL`)
	qDisableWebhook = newStmt(`UPDATE webhook_subscriptions SET active = FALSE, updated_at = ?
		WHERE id = ? AND active`)
	qDisableFailingWebhook = newStmt(`UPDATE webhook_subscriptions SET active = FALSE, updated_at = ?
		WHERE id = ? AND active AND failing_since <= ?`)
)

// webhookColumnsOf is webhookColumns qualified by a table alias.
func webhookColumnsOf(alias string) string {
	return alias + `.id, ` + alias + `.account_id, ` + alias + `.url, ` + alias + `.active, ` +
		alias + `.secret, ` + alias + `.previous_secret, ` + alias + `.previous_valid_until, ` +
		alias + `.failing_since, ` + alias + `.created_at, ` + alias + `.updated_at`
}

// deliveryNotFound is the public message of a missing delivery, including one of
// another account or subscription.
const deliveryNotFound = "webhook delivery not found"

// deliveryRow is one scanned row of deliveryColumns; leasedUntil is internal.
type deliveryRow struct {
	d           skygate.WebhookDelivery
	leasedUntil *time.Time
}

// dest returns the scan destinations of deliveryColumns.
func (r *deliveryRow) dest() []any {
	return []any{&r.d.ID, &r.d.SubscriptionID, &r.d.AccountID, &r.d.EventID, &r.d.EventType,
		(*string)(&r.d.Status), &r.d.AttemptCount, nullTimeCol{&r.d.NextAttemptAt}, nullTimeCol{&r.leasedUntil},
		&r.d.LastStatusCode, &r.d.LastError, timeCol{&r.d.CreatedAt}, timeCol{&r.d.UpdatedAt}}
}

// delivery finishes the scanned delivery: the message id is the event id.
func (r *deliveryRow) delivery() *skygate.WebhookDelivery {
	r.d.MessageID = r.d.EventID
	return &r.d
}

// scanDelivery reads one row of deliveryColumns.
func scanDelivery(row scanner) (*skygate.WebhookDelivery, error) {
	var r deliveryRow
	if err := row.Scan(r.dest()...); err != nil {
		return nil, err
	}
	return r.delivery(), nil
}

// scanAttempt reads one row of attemptColumns.
func scanAttempt(row scanner) (*skygate.WebhookAttempt, error) {
	var a skygate.WebhookAttempt
	err := row.Scan(&a.DeliveryID, &a.Attempt, timeCol{&a.At}, &a.StatusCode, &a.LatencyMS, &a.Error)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// queryAttempts appends the attempts of query's rows to the deliveries they belong to.
func queryAttempts(ctx context.Context, db queryer, deliveries []*skygate.WebhookDelivery, query string, args ...any) error {
	byID := make(map[string]*skygate.WebhookDelivery, len(deliveries))
	for _, d := range deliveries {
		d.Attempts = []*skygate.WebhookAttempt{}
		byID[d.ID] = d
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return err
		}
		if d := byID[a.DeliveryID]; d != nil {
			d.Attempts = append(d.Attempts, a)
		}
	}
	return rows.Err()
}

// ListWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) ListWebhookDeliveries(ctx context.Context, accountID, webhookID string, p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
	limit, offset := pageArgs(p)
	deliveries := []*skygate.WebhookDelivery{}
	var total int
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		if _, err := scanWebhook(tx.QueryRowContext(ctx, s.q(qWebhook), accountID, webhookID)); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, s.q(qListDeliveries), accountID, webhookID, limit, offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return err
			}
			deliveries = append(deliveries, d)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		err = queryAttempts(ctx, tx, deliveries, s.q(qPageAttempts), accountID, webhookID, limit, offset)
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(qCountDeliveries), accountID, webhookID).Scan(&total)
	})
	if err != nil {
		return nil, 0, s.interpret(outcome{op: "list webhook deliveries", notFound: webhookNotFound}, err)
	}
	return deliveries, total, nil
}

// WebhookDelivery implements skygate.WebhookStore.
func (s *Store) WebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	var d *skygate.WebhookDelivery
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = scanDelivery(tx.QueryRowContext(ctx, s.q(qDelivery), accountID, webhookID, deliveryID))
		if err != nil {
			return err
		}
		return queryAttempts(ctx, tx, []*skygate.WebhookDelivery{d}, s.q(qAttempts), d.ID)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "get webhook delivery", notFound: deliveryNotFound}, err)
	}
	return d, nil
}

// RetryWebhookDelivery implements skygate.WebhookStore.
func (s *Store) RetryWebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string, now time.Time) (*skygate.WebhookDelivery, error) {
	now = utc(now)
	read := s.q(qRetryRead)
	if s.concurrentWriters() {
		read = s.q(qRetryReadLocked)
	}
	var d *skygate.WebhookDelivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var (
			r      deliveryRow
			active bool
		)
		err := tx.QueryRowContext(ctx, read, accountID, webhookID, deliveryID).Scan(append(r.dest(), &active)...)
		if err != nil {
			return err
		}
		d = r.delivery()
		switch {
		case d.Status == skygate.WebhookSucceeded:
			return skygate.Errorf(skygate.CodeConflict, "the delivery has already succeeded")
		case !active:
			return errWebhookInactive
		case d.Status == skygate.WebhookPending && r.leasedUntil != nil && r.leasedUntil.After(now):
			// In flight: its dispatcher reports soon; retrying now would send it twice.
		default:
			if _, err := tx.ExecContext(ctx, s.q(qRetryDelivery), s.time(now), s.time(now), d.ID); err != nil {
				return err
			}
			d.Status, d.NextAttemptAt, d.UpdatedAt = skygate.WebhookPending, &now, now
		}
		return queryAttempts(ctx, tx, []*skygate.WebhookDelivery{d}, s.q(qAttempts), d.ID)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "retry webhook delivery", notFound: deliveryNotFound}, err)
	}
	return d, nil
}

// ClaimWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*skygate.WebhookJob, error) {
	if limit <= 0 {
		return []*skygate.WebhookJob{}, nil
	}
	now, leaseUntil = utc(now), utc(leaseUntil)
	query := s.q(qClaim)
	if s.concurrentWriters() {
		query = s.q(qClaimLocked)
	}
	var jobs []*skygate.WebhookJob
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		jobs = []*skygate.WebhookJob{}
		rows, err := tx.QueryContext(ctx, query, s.time(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				r    deliveryRow
				body []byte
				w    skygate.WebhookSubscription
			)
			dest := append(r.dest(), &body, &w.ID, &w.AccountID, &w.URL, &w.Active, &w.Secret,
				&w.PreviousSecret, nullTimeCol{&w.PreviousValidUntil}, nullTimeCol{&w.FailingSince},
				timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt})
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			jobs = append(jobs, &skygate.WebhookJob{Delivery: r.delivery(), Subscription: &w, Body: body})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, j := range jobs {
			d := j.Delivery
			_, err := tx.ExecContext(ctx, s.q(qLease), s.time(leaseUntil), s.time(leaseUntil), s.time(now), d.ID)
			if err != nil {
				return err
			}
			d.AttemptCount++
			d.NextAttemptAt, d.UpdatedAt = &leaseUntil, now
			if len(j.Subscription.PreviousSecret) == 0 {
				j.Subscription.PreviousSecret = nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "claim webhook deliveries"}, err)
	}
	return jobs, nil
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
		live := make(map[string]bool, len(subs))
		for _, id := range subs {
			live[id] = true
			if !s.concurrentWriters() {
				continue // the single writer excludes deletes; a missing row shows below
			}
			err := tx.QueryRowContext(ctx, s.q(qLockWebhookKey), id).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				live[id] = false
				continue
			}
			if err != nil {
				return err
			}
		}
		var applied []*skygate.WebhookOutcome
		for _, o := range byDelivery {
			if !live[o.SubscriptionID] {
				continue
			}
			ok, err := s.completeDelivery(ctx, tx, o)
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
			if err := s.recordHealth(ctx, tx, o); err != nil {
				return err
			}
		}
		return nil
	})
	return s.interpret(outcome{op: "complete webhook deliveries"}, err)
}

// completeDelivery logs o's attempt and, if the attempt still holds the delivery,
// writes the delivery's new state; ok reports the latter. A delivery that no longer
// exists (SQLite reports the broken reference; the statement fails alone and the
// transaction goes on) is skipped.
func (s *Store) completeDelivery(ctx context.Context, tx *sql.Tx, o *skygate.WebhookOutcome) (ok bool, err error) {
	a := o.Attempt
	at := utc(a.At)
	_, err = tx.ExecContext(ctx, s.q(qInsertAttempt),
		o.DeliveryID, a.Attempt, s.time(at), a.StatusCode, a.LatencyMS, a.Error)
	if err != nil {
		if s.d.Classify(err) == ForeignKeyViolation && !s.concurrentWriters() {
			return false, nil
		}
		return false, err
	}
	var next any
	if o.Status == skygate.WebhookPending {
		next = s.time(o.NextAttemptAt)
	}
	res, err := tx.ExecContext(ctx, s.q(qCompleteDelivery),
		string(o.Status), next, a.StatusCode, a.Error, s.time(at), o.DeliveryID, a.Attempt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// recordHealth applies an attempt's outcome to its subscription: a success clears the
// failure time; a failure sets it if unset and turns the subscription inactive on
// Disable (410) or when it has been failing since FailingCutoff or earlier.
func (s *Store) recordHealth(ctx context.Context, tx *sql.Tx, o *skygate.WebhookOutcome) error {
	at := s.time(o.Attempt.At)
	if o.Status == skygate.WebhookSucceeded {
		_, err := tx.ExecContext(ctx, s.q(qWebhookHealthy), o.SubscriptionID)
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(qWebhookFailing), at, o.SubscriptionID); err != nil {
		return err
	}
	var err error
	switch {
	case o.Disable:
		_, err = tx.ExecContext(ctx, s.q(qDisableWebhook), at, o.SubscriptionID)
	case !o.FailingCutoff.IsZero():
		_, err = tx.ExecContext(ctx, s.q(qDisableFailingWebhook), at, o.SubscriptionID, s.time(o.FailingCutoff))
	}
	return err
}
