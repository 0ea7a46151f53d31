package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

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

	// claimDeliveries takes a delivery of an object (a non-empty ordering key) only
	// when none of its subscription and key that is pending comes before it (smaller
	// event_seq) or is in flight; the check reads webhook_deliveries_ordering, whose
	// condition it repeats. A delivery in flight stays pending, and a claimer that
	// skips one another holds still sees it pending in the check, so of one object's
	// deliveries only the earliest pending one can be claimed, by one claimer.
	claimDeliveries = `SELECT ` + deliveryColumns + `, d.body,
			s.id, s.account_id, s.url, s.active, s.secret, s.previous_secret,
			s.previous_valid_until, s.failing_since, s.created_at, s.updated_at,
			s.event_types, s.disabled_at, s.disabled_reason
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND s.active
			AND (d.ordering_key = '' OR NOT EXISTS (
				SELECT FROM webhook_deliveries p
				WHERE p.subscription_id = d.subscription_id AND p.ordering_key = d.ordering_key
					AND p.status = 'pending' AND p.ordering_key <> ''
					AND (p.event_seq < d.event_seq OR p.leased_until > $1)))
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
		WHERE id = $6 AND status = 'pending' AND attempts = $7 AND leased_until IS NOT NULL
		RETURNING ordering_key, event_seq`
	// holdSuccessors and releaseSuccessors move the due time of an object's later
	// deliveries, on webhook_deliveries_ordering (see sqlstore.DeliverySQL.Hold).
	// Holding only ever moves a time later, so it takes attempted deliveries too (a
	// recovery or a manual retry made them due), lest every claim rescan them while
	// the one before them waits; releasing takes only those never attempted, whose
	// time no backoff of their own set.
	holdSuccessors = `UPDATE webhook_deliveries SET next_attempt_at = $1
		WHERE subscription_id = $2 AND ordering_key = $3 AND status = 'pending'
			AND ordering_key <> '' AND event_seq > $4 AND next_attempt_at < $1`
	releaseSuccessors = `UPDATE webhook_deliveries SET next_attempt_at = $1
		WHERE subscription_id = $2 AND ordering_key = $3 AND status = 'pending'
			AND ordering_key <> '' AND event_seq > $4 AND attempts = 0 AND next_attempt_at > $1`
	markWebhookHealthy = `UPDATE webhook_subscriptions SET failing_since = NULL
		WHERE id = $1 AND failing_since IS NOT NULL`
	markWebhookFailing = `UPDATE webhook_subscriptions SET failing_since = $1
		WHERE id = $2 AND failing_since IS NULL`
	// disableWebhook and disableFailingWebhook return what the notice of the change
	// (webhook.subscription.disabled) tells, and no row when they changed nothing.
	disableWebhook = `UPDATE webhook_subscriptions SET active = false, disabled_at = $1,
		disabled_reason = 'gone', updated_at = $1
		WHERE id = $2 AND active RETURNING account_id, url, failing_since`
	disableFailingWebhook = `UPDATE webhook_subscriptions SET active = false, disabled_at = $1,
		disabled_reason = 'failing', updated_at = $1
		WHERE id = $2 AND active AND failing_since <= $3 RETURNING account_id, url, failing_since`
	// webhookBacklog reads the pending deliveries off webhook_deliveries_due, the
	// partial index of the claim: its condition implies the index's.
	webhookBacklog = `SELECT count(*), min(d.next_attempt_at) FILTER (WHERE d.next_attempt_at <= $1)
		FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
		WHERE d.status = 'pending' AND s.active`
)

// deliverySQL is the SQL of the delivery flows (sqlstore.DeliverySQL).
var deliverySQL = sqlstore.DeliverySQL{
	Webhook: selectWebhook, Delivery: selectDelivery, List: listDeliveries, Count: countDeliveries,
	Attempts: selectAttemptsOf, Retried: lockRetried, Retry: retryDelivery,
	Claim: claimDeliveries, Lease: leaseDeliveries, Live: lockWebhookKeys, Attempt: insertAttempt,
	Complete: completeDelivery, Healthy: markWebhookHealthy, Failing: markWebhookFailing,
	Disable: disableWebhook, DisableFailing: disableFailingWebhook, Backlog: webhookBacklog,
	Hold: holdSuccessors, Release: releaseSuccessors,
}

// ListWebhookDeliveries implements skygate.WebhookStore.
func (s *Store) ListWebhookDeliveries(ctx context.Context, accountID, webhookID string, p skygate.Page) ([]*skygate.WebhookDelivery, int, error) {
	return sqlstore.ListWebhookDeliveries(ctx, s.db, &deliverySQL, accountID, webhookID, p)
}

// WebhookDelivery implements skygate.WebhookStore.
func (s *Store) WebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string) (*skygate.WebhookDelivery, error) {
	return sqlstore.WebhookDelivery(ctx, s.db, &deliverySQL, accountID, webhookID, deliveryID)
}

// RetryWebhookDelivery implements skygate.WebhookStore. The delivery's row is locked
// from its read to the commit.
func (s *Store) RetryWebhookDelivery(ctx context.Context, accountID, webhookID, deliveryID string, now time.Time) (*skygate.WebhookDelivery, error) {
	return sqlstore.RetryWebhookDelivery(ctx, s.db, &deliverySQL, accountID, webhookID, deliveryID, now)
}

// ClaimWebhookDeliveries implements skygate.WebhookStore. Claimers skip the deliveries
// others hold.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]*skygate.WebhookJob, error) {
	return sqlstore.ClaimWebhookDeliveries(ctx, s.db, &deliverySQL, now, leaseUntil, limit)
}

// CompleteWebhookDeliveries implements skygate.WebhookStore. Locks are taken in one
// global order so that concurrent completions (several replicas) and deletes of a
// subscription cannot deadlock: first a key-share lock on every subscription involved,
// by id, which a concurrent delete waits for or wins (its outcomes are then skipped);
// then the delivery rows, by id, each followed by the later deliveries of its object
// that its outcome holds or releases (no other completer holds those: one object has
// one delivery in flight, and claimers skip locked rows); then the subscription rows
// for the failure bookkeeping, by id.
func (s *Store) CompleteWebhookDeliveries(ctx context.Context, outcomes []*skygate.WebhookOutcome) error {
	return sqlstore.CompleteWebhookDeliveries(ctx, s.db, &deliverySQL, outcomes)
}

// WebhookBacklog implements skygate.WebhookStore.
func (s *Store) WebhookBacklog(ctx context.Context, now time.Time) (skygate.WebhookBacklog, error) {
	return sqlstore.WebhookBacklog(ctx, s.db, &deliverySQL, now)
}
