package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The order of one object's deliveries (WebhookStore.ClaimWebhookDeliveries): a
// delivery is claimed only when no earlier pending delivery of its subscription and
// ordering key exists and none of them is in flight.
var webhookOrderingTests = []test{
	{"OrderHeldAcrossRetry", testOrderHeldAcrossRetry},
	{"ReleasedByFinalFailure", testOrderReleasedByFailure},
	{"ManualRetryWaits", testOrderManualRetryWaits},
	{"IndependentObjects", testOrderIndependentObjects},
	{"TestEventsUnordered", testOrderTestEventsUnordered},
	{"BookingTransitions", testOrderBookingTransitions},
	{"ConcurrentClaimers", testOrderConcurrentClaimers},
	{"RecoveredInOrder", testOrderRecovered},
	{"RecoveredHeld", testOrderRecoveredHeld},
}

// mustObjectDelivery writes an event about the object key at now and returns its
// delivery to the subscription.
func mustObjectDelivery(tb testing.TB, s skygate.Store, accountID, webhookID, key string, now time.Time) *skygate.WebhookDelivery {
	tb.Helper()
	e := MustNewEvent(tb, accountID, skygate.EventBookingStatusChanged, now)
	e.OrderingKey = key
	d, err := s.CreateWebhookTestEvent(tb.Context(), accountID, webhookID, e)
	MustNoError(tb, err, "CreateWebhookTestEvent")
	return d
}

// claimedIDs claims at now and returns the ids of the deliveries claimed, sorted.
func claimedIDs(tb testing.TB, s skygate.Store, now time.Time) ([]string, []*skygate.WebhookJob) {
	tb.Helper()
	jobs := MustClaim(tb, s, now, now.Add(lease), 10)
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.Delivery.ID
	}
	slices.Sort(ids)
	return ids, jobs
}

func testOrderHeldAcrossRetry(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	key := skygate.BookingOrderingKey(NewID())
	first := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	second := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))

	ids, jobs := claimedIDs(t, s, At(time.Second))
	wantEqual(t, "claimed while both are due", ids, []string{first.ID})
	ids, _ = claimedIDs(t, s, At(2*time.Second))
	wantEqual(t, "claimed while the first is in flight", ids, []string{})

	retryAt := At(time.Hour)
	MustComplete(t, s, jobs[0], skygate.WebhookPending, 503, At(3*time.Second),
		func(o *skygate.WebhookOutcome) { o.NextAttemptAt = retryAt })
	ids, _ = claimedIDs(t, s, At(time.Minute))
	wantEqual(t, "claimed while the first waits for its retry", ids, []string{})
	wantEqual(t, "the second is due with the first's retry",
		MustDelivery(t, s, acc.ID, w.ID, second.ID).NextAttemptAt, ptr(Stored(retryAt)))

	// The partner retries the first by hand before its time; its success makes the
	// second due at once instead of at the retry time it was held to.
	_, err := s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, first.ID, At(2*time.Minute))
	MustNoError(t, err, "RetryWebhookDelivery")
	ids, jobs = claimedIDs(t, s, At(2*time.Minute))
	wantEqual(t, "claimed after the retry by hand", ids, []string{first.ID})
	done := At(2*time.Minute + time.Second)
	MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, done)
	wantEqual(t, "the second is due when the first succeeded",
		MustDelivery(t, s, acc.ID, w.ID, second.ID).NextAttemptAt, ptr(Stored(done)))
	ids, _ = claimedIDs(t, s, done)
	wantEqual(t, "claimed after the first succeeded", ids, []string{second.ID})
}

func testOrderReleasedByFailure(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	key := skygate.ESIMOrderingKey("8988247000000000001")
	mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	second := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))

	_, jobs := claimedIDs(t, s, At(time.Second))
	MustComplete(t, s, jobs[0], skygate.WebhookFailed, 500, At(2*time.Second))
	ids, _ := claimedIDs(t, s, At(2*time.Second))
	wantEqual(t, "claimed after the first failed for good", ids, []string{second.ID})
}

// testOrderManualRetryWaits: a retry by hand makes a later delivery due, but it still
// waits for the earlier one; and an earlier delivery retried by hand waits until the
// later one in flight has finished.
func testOrderManualRetryWaits(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	key := skygate.BookingOrderingKey(NewID())
	first := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	second := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))

	_, jobs := claimedIDs(t, s, At(time.Second))
	MustComplete(t, s, jobs[0], skygate.WebhookPending, 503, At(2*time.Second),
		func(o *skygate.WebhookOutcome) { o.NextAttemptAt = At(time.Hour) })
	_, err := s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, second.ID, At(time.Minute))
	MustNoError(t, err, "RetryWebhookDelivery")
	ids, _ := claimedIDs(t, s, At(time.Minute))
	wantEqual(t, "claimed after the later one was retried by hand", ids, []string{})

	ids, jobs = claimedIDs(t, s, At(time.Hour))
	wantEqual(t, "claimed at the first's retry", ids, []string{first.ID})
	MustComplete(t, s, jobs[0], skygate.WebhookFailed, 500, At(time.Hour))
	ids, jobs = claimedIDs(t, s, At(time.Hour))
	wantEqual(t, "claimed after the first failed", ids, []string{second.ID})

	// The partner retries the failed first one while the second is in flight.
	_, err = s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, first.ID, At(time.Hour+time.Second))
	MustNoError(t, err, "RetryWebhookDelivery")
	ids, _ = claimedIDs(t, s, At(time.Hour+time.Second))
	wantEqual(t, "claimed while a later one is in flight", ids, []string{})
	MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, At(time.Hour+2*time.Second))
	ids, _ = claimedIDs(t, s, At(time.Hour+2*time.Second))
	wantEqual(t, "claimed after it finished", ids, []string{first.ID})
}

func testOrderIndependentObjects(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	a, b := skygate.BookingOrderingKey(NewID()), skygate.BookingOrderingKey(NewID())
	a1 := mustObjectDelivery(t, s, acc.ID, w.ID, a, At(0))
	a2 := mustObjectDelivery(t, s, acc.ID, w.ID, a, At(0))
	b1 := mustObjectDelivery(t, s, acc.ID, w.ID, b, At(0))
	// Another account's delivery of an object with the same key is not held up either.
	other := MustCreateAccount(t, s)
	ow := MustCreateWebhook(t, s, other.ID)
	o1 := mustObjectDelivery(t, s, other.ID, ow.ID, a, At(0))

	ids, jobs := claimedIDs(t, s, At(time.Second))
	want := []string{a1.ID, b1.ID, o1.ID}
	slices.Sort(want)
	wantEqual(t, "claimed: the first of each object", ids, want)
	for _, j := range jobs {
		if j.Delivery.ID == b1.ID {
			MustComplete(t, s, j, skygate.WebhookSucceeded, 200, At(2*time.Second))
		}
	}
	ids, _ = claimedIDs(t, s, At(2*time.Second))
	wantEqual(t, "claimed while a's first is in flight", ids, []string{})
	for _, j := range jobs {
		if j.Delivery.ID == a1.ID {
			MustComplete(t, s, j, skygate.WebhookSucceeded, 200, At(3*time.Second))
		}
	}
	ids, _ = claimedIDs(t, s, At(3*time.Second))
	wantEqual(t, "claimed after a's first", ids, []string{a2.ID})
}

func testOrderTestEventsUnordered(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	want := []string{
		MustTestDelivery(t, s, acc.ID, w.ID, At(0)).ID,
		MustTestDelivery(t, s, acc.ID, w.ID, At(0)).ID,
		MustTestDelivery(t, s, acc.ID, w.ID, At(0)).ID,
	}
	slices.Sort(want)
	ids, _ := claimedIDs(t, s, At(time.Second))
	wantEqual(t, "webhook.test deliveries claimed together", ids, want)
}

// testOrderBookingTransitions: the events of a booking's creation and of its issue
// (booking.status.changed twice, then pass.status.changed) are claimed one at a time
// in the order they were written.
func testOrderBookingTransitions(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCreateWebhook(t, s, acc.ID)
	b := NewBooking(acc.ID, WithBookingCreated(At(0)))
	created, err := skygate.BookingEvents(nil, b, At(0))
	MustNoError(t, err, "BookingEvents")
	_, err = s.CreateBooking(t.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, created)
	MustNoError(t, err, "CreateBooking")
	MustTransition(t, s, b, At(time.Second), skygate.TriggerIssue)

	var want []string
	for _, e := range MustEventsAfter(t, s, 0) {
		wantEqual(t, "ordering key of "+e.Type, e.OrderingKey, skygate.BookingOrderingKey(b.ID))
		want = append(want, e.ID)
	}
	wantEqual(t, "events", len(want), 3)
	var got []string
	now := At(time.Minute)
	for range len(want) + 1 {
		jobs := MustClaim(t, s, now, now.Add(lease), 10)
		if len(jobs) == 0 {
			break
		}
		wantEqual(t, "deliveries claimed at once", len(jobs), 1)
		got = append(got, jobs[0].Delivery.EventID)
		MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, now)
		now = now.Add(time.Second)
	}
	wantEqual(t, "events in the order delivered", got, want)
}

// testOrderConcurrentClaimers lets several claimers drain several objects'
// deliveries, each claimer completing what it claimed: no two deliveries of one object
// are ever claimed at once, and each object's are completed in the order written.
func testOrderConcurrentClaimers(t *testing.T, s skygate.Store) {
	const objects, perObject, claimers = 6, 4, 6
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	keyOf := map[string]string{}
	want := map[string][]string{}
	for range objects {
		key := skygate.BookingOrderingKey(NewID())
		for range perObject {
			d := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
			keyOf[d.ID] = key
			want[key] = append(want[key], d.ID)
		}
	}
	var (
		mu       sync.Mutex
		inFlight = map[string]string{} // key → delivery
		done     = map[string][]string{}
		wg       sync.WaitGroup
	)
	for range claimers {
		wg.Go(func() {
			// A claimer gives up after many empty claims in a row, so that a broken
			// order fails the comparison below instead of hanging.
			for idle := 0; idle < 10000; {
				jobs, err := s.ClaimWebhookDeliveries(t.Context(), At(time.Second), At(time.Hour), 2)
				if err != nil {
					t.Errorf("ClaimWebhookDeliveries: %v", err)
					return
				}
				mu.Lock()
				finished := len(done) == objects && func() bool {
					for _, ids := range done {
						if len(ids) < perObject {
							return false
						}
					}
					return true
				}()
				for _, j := range jobs {
					key := keyOf[j.Delivery.ID]
					if held, ok := inFlight[key]; ok {
						t.Errorf("delivery %s claimed while %s of the same object is in flight", j.Delivery.ID, held)
					}
					inFlight[key] = j.Delivery.ID
				}
				mu.Unlock()
				if finished {
					return
				}
				if len(jobs) == 0 {
					idle++
					time.Sleep(100 * time.Microsecond)
					continue
				}
				idle = 0
				for _, j := range jobs {
					mu.Lock()
					key := keyOf[j.Delivery.ID]
					delete(inFlight, key)
					done[key] = append(done[key], j.Delivery.ID)
					mu.Unlock()
					// Recorded after the bookkeeping: the next claim of the object may
					// follow the completion at once.
					o := &skygate.WebhookOutcome{
						DeliveryID: j.Delivery.ID, SubscriptionID: j.Delivery.SubscriptionID,
						Attempt: skygate.WebhookAttempt{DeliveryID: j.Delivery.ID,
							Attempt: j.Delivery.AttemptCount, At: At(time.Second), StatusCode: 200},
						Status: skygate.WebhookSucceeded,
					}
					if err := s.CompleteWebhookDeliveries(t.Context(), []*skygate.WebhookOutcome{o}); err != nil {
						t.Errorf("CompleteWebhookDeliveries: %v", err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	wantEqual(t, "completed in the order written", done, want)
}

// testOrderRecovered: a recovery keeps the order of an object's events, both for the
// deliveries it makes pending again and for those it creates (events written while
// the subscription was inactive).
func testOrderRecovered(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	key := skygate.BookingOrderingKey(NewID())
	first := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	for now := At(time.Second); ; now = now.Add(time.Second) {
		_, jobs := claimedIDs(t, s, now)
		if len(jobs) == 0 {
			break
		}
		MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, now)
	}
	MustDisableWebhook(t, s, acc.ID, w.ID)
	parked := MustNewEvent(t, acc.ID, skygate.EventBookingStatusChanged, At(time.Minute))
	parked.OrderingKey = key
	mustWriteEvents(t, s, acc.ID, parked) // no delivery: the subscription is inactive
	_, err := s.EnableWebhook(t.Context(), acc.ID, w.ID, At(time.Hour))
	MustNoError(t, err, "EnableWebhook")

	r, err := s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(-time.Hour), At(time.Hour), 10)
	MustNoError(t, err, "RecoverWebhookDeliveries")
	wantEqual(t, "recovery", r, &skygate.WebhookRecovery{Enqueued: 2})
	var got []string
	for now := At(time.Hour + time.Second); len(got) < 3; now = now.Add(time.Second) {
		_, jobs := claimedIDs(t, s, now)
		if len(jobs) == 0 {
			break
		}
		wantEqual(t, "deliveries claimed at once", len(jobs), 1)
		got = append(got, jobs[0].Delivery.EventID)
		MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, now)
	}
	wantEqual(t, "recovered events in the order written", got, []string{first.EventID, parked.ID})
}

// testOrderRecoveredHeld: deliveries a recovery made pending again were attempted
// before, yet a retry of the earlier one of their object still moves them to its
// time, so that claims do not pass over them until then.
func testOrderRecoveredHeld(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	key := skygate.BookingOrderingKey(NewID())
	first := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	second := mustObjectDelivery(t, s, acc.ID, w.ID, key, At(0))
	for now := At(time.Second); ; now = now.Add(time.Second) {
		_, jobs := claimedIDs(t, s, now)
		if len(jobs) == 0 {
			break
		}
		MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, now)
	}

	recovered := At(time.Hour)
	r, err := s.RecoverWebhookDeliveries(t.Context(), acc.ID, w.ID, At(-time.Hour), recovered, 10)
	MustNoError(t, err, "RecoverWebhookDeliveries")
	wantEqual(t, "recovery", r, &skygate.WebhookRecovery{Enqueued: 2})
	ids, jobs := claimedIDs(t, s, recovered)
	wantEqual(t, "claimed after the recovery", ids, []string{first.ID})
	retryAt := recovered.Add(10 * time.Minute)
	MustComplete(t, s, jobs[0], skygate.WebhookPending, 503, recovered.Add(time.Second),
		func(o *skygate.WebhookOutcome) { o.NextAttemptAt = retryAt })
	got := MustDelivery(t, s, acc.ID, w.ID, second.ID)
	wantEqual(t, "the recovered second was attempted before", got.AttemptCount, 1)
	wantEqual(t, "the recovered second is due with the first's retry", got.NextAttemptAt, ptr(Stored(retryAt)))
	ids, _ = claimedIDs(t, s, retryAt)
	wantEqual(t, "claimed at the retry", ids, []string{first.ID})
}
