package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

const lease = 30 * time.Second

func testDeliveryClaimAndComplete(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	due := At(time.Minute)
	d := MustTestDelivery(t, s, acc.ID, w.ID, due)

	wantEqual(t, "claims before due", len(MustClaim(t, s, due.Add(-time.Microsecond), due.Add(lease), 10)), 0)
	jobs := MustClaim(t, s, due, due.Add(lease), 10)
	wantEqual(t, "claimed", len(jobs), 1)
	j := jobs[0]
	wantEqual(t, "subscription of the job", j.Subscription, w)
	wantEqual(t, "attempt number", j.Delivery.AttemptCount, 1)
	wantEqual(t, "leased until", j.Delivery.NextAttemptAt, ptr(Stored(due.Add(lease))))
	if len(j.Body) == 0 {
		t.Fatal("the job has no body")
	}
	wantEqual(t, "claims while leased", len(MustClaim(t, s, due.Add(lease/2), due.Add(lease), 10)), 0)

	done := due.Add(time.Second)
	MustComplete(t, s, j, skygate.WebhookSucceeded, 204, done)
	got := MustDelivery(t, s, acc.ID, w.ID, d.ID)
	want := *d
	want.Status, want.AttemptCount, want.NextAttemptAt = skygate.WebhookSucceeded, 1, nil
	want.LastStatusCode, want.UpdatedAt = 204, Stored(done)
	want.Attempts = []*skygate.WebhookAttempt{{DeliveryID: d.ID, Attempt: 1, At: Stored(done), StatusCode: 204, LatencyMS: 12}}
	wantEqual(t, "succeeded", got, &want)
	wantEqual(t, "claims after success", len(MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)), 0)
}

func testDeliveryLeaseExpiry(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	due := At(time.Minute)
	d := MustTestDelivery(t, s, acc.ID, w.ID, due)
	crashed := MustClaim(t, s, due, due.Add(lease), 10)[0]
	// The first dispatcher never reports; when its lease ends another takes over.
	taken := MustClaim(t, s, due.Add(lease), due.Add(2*lease), 10)
	wantEqual(t, "claimed again after the lease", len(taken), 1)
	wantEqual(t, "second attempt", taken[0].Delivery.AttemptCount, 2)

	// A late report of the first attempt is logged but does not decide the delivery.
	MustComplete(t, s, crashed, skygate.WebhookSucceeded, 200, due.Add(lease+time.Second))
	got := MustDelivery(t, s, acc.ID, w.ID, d.ID)
	wantEqual(t, "status after the stale report", got.Status, skygate.WebhookPending)

	retryAt := due.Add(time.Hour)
	MustComplete(t, s, taken[0], skygate.WebhookPending, 503, due.Add(lease+2*time.Second),
		func(o *skygate.WebhookOutcome) { o.NextAttemptAt = retryAt })
	got = MustDelivery(t, s, acc.ID, w.ID, d.ID)
	wantEqual(t, "status", got.Status, skygate.WebhookPending)
	wantEqual(t, "next attempt", got.NextAttemptAt, ptr(Stored(retryAt)))
	wantEqual(t, "last status", got.LastStatusCode, 503)
	wantEqual(t, "attempts logged", len(got.Attempts), 2)
	wantEqual(t, "attempt numbers", [2]int{got.Attempts[0].Attempt, got.Attempts[1].Attempt}, [2]int{1, 2})
	wantEqual(t, "due again at the retry time", len(MustClaim(t, s, retryAt, retryAt.Add(lease), 10)), 1)
}

func testDeliveryFailureRules(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	fail := func(now time.Time, cutoff time.Time) {
		t.Helper()
		MustTestDelivery(t, s, acc.ID, w.ID, now)
		for _, j := range MustClaim(t, s, now, now.Add(lease), 10) {
			MustComplete(t, s, j, skygate.WebhookFailed, 500, now,
				func(o *skygate.WebhookOutcome) { o.FailingCutoff = cutoff })
		}
	}
	first := At(time.Hour)
	fail(first, first.Add(-72*time.Hour))
	got := MustWebhook(t, s, acc.ID, w.ID)
	wantEqual(t, "failing since the first failure", got.FailingSince, ptr(Stored(first)))
	wantEqual(t, "still active", got.Active, true)

	later := first.Add(71 * time.Hour)
	fail(later, later.Add(-72*time.Hour))
	got = MustWebhook(t, s, acc.ID, w.ID)
	wantEqual(t, "failing since unchanged", got.FailingSince, ptr(Stored(first)))
	wantEqual(t, "active before 72 h", got.Active, true)

	// A success in between restarts the count.
	ok := later.Add(time.Hour)
	MustTestDelivery(t, s, acc.ID, w.ID, ok)
	MustComplete(t, s, MustClaim(t, s, ok, ok.Add(lease), 10)[0], skygate.WebhookSucceeded, 200, ok)
	wantEqual(t, "failing since after a success", MustWebhook(t, s, acc.ID, w.ID).FailingSince, (*time.Time)(nil))

	again := ok.Add(time.Minute)
	fail(again, again.Add(-72*time.Hour))
	end := again.Add(72 * time.Hour)
	fail(end, end.Add(-72*time.Hour))
	got = MustWebhook(t, s, acc.ID, w.ID)
	wantEqual(t, "inactive after 72 h of failures", got.Active, false)
	wantEqual(t, "updated when disabled", got.UpdatedAt, Stored(end))

	gone := MustCreateAccount(t, s)
	w2 := MustCreateWebhook(t, s, gone.ID)
	MustDisableWebhook(t, s, gone.ID, w2.ID) // 410 Gone disables at once
}

func testDeliveryParked(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	d := MustTestDelivery(t, s, acc.ID, w.ID, At(time.Minute))
	MustDisableWebhook(t, s, acc.ID, w.ID)
	wantEqual(t, "claims while inactive", len(MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)), 0)
	wantEqual(t, "parked, still pending", MustDelivery(t, s, acc.ID, w.ID, d.ID).Status, skygate.WebhookPending)

	_, err := s.ChangeWebhookURL(t.Context(), acc.ID, w.ID, "https://fixed.example/", At(time.Hour))
	MustNoError(t, err, "ChangeWebhookURL")
	jobs := MustClaim(t, s, At(time.Hour), At(2*time.Hour), 10)
	wantEqual(t, "claimed after reactivation", len(jobs), 1)
	wantEqual(t, "delivery", jobs[0].Delivery.ID, d.ID)
	wantEqual(t, "new URL", jobs[0].Subscription.URL, "https://fixed.example/")
}

func testDeliveryRetry(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	d := MustTestDelivery(t, s, acc.ID, w.ID, At(time.Minute))
	MustComplete(t, s, MustClaim(t, s, At(time.Minute), At(time.Minute).Add(lease), 10)[0],
		skygate.WebhookFailed, 500, At(time.Minute))

	now := At(time.Hour)
	got, err := s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, d.ID, now)
	MustNoError(t, err, "RetryWebhookDelivery")
	wantEqual(t, "status", got.Status, skygate.WebhookPending)
	wantEqual(t, "due now", got.NextAttemptAt, ptr(Stored(now)))
	wantEqual(t, "attempts continue", got.AttemptCount, 1)
	wantEqual(t, "log kept", len(got.Attempts), 1)
	wantEqual(t, "stored", MustDelivery(t, s, acc.ID, w.ID, d.ID), got)

	jobs := MustClaim(t, s, now, now.Add(lease), 10)
	wantEqual(t, "claimed after retry", len(jobs), 1)
	wantEqual(t, "attempt", jobs[0].Delivery.AttemptCount, 2)
	inFlight, err := s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, d.ID, now.Add(time.Second))
	MustNoError(t, err, "RetryWebhookDelivery in flight")
	wantEqual(t, "in flight: unchanged", inFlight.NextAttemptAt, ptr(Stored(now.Add(lease))))
	wantEqual(t, "no second claim", len(MustClaim(t, s, now.Add(time.Second), now.Add(lease), 10)), 0)

	MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, now.Add(time.Second))
	_, err = s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, d.ID, now.Add(time.Minute))
	WantCode(t, err, skygate.CodeConflict)
	_, err = s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, skygate.NewID(), now)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.RetryWebhookDelivery(t.Context(), acc.ID, skygate.NewID(), d.ID, now)
	WantCode(t, err, skygate.CodeNotFound)

	pending := MustTestDelivery(t, s, acc.ID, w.ID, At(2*time.Hour))
	MustDisableWebhook(t, s, acc.ID, w.ID)
	_, err = s.RetryWebhookDelivery(t.Context(), acc.ID, w.ID, pending.ID, At(3*time.Hour))
	WantCode(t, err, skygate.CodeConflict)
}

func testDeliveryList(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	var ids []string
	for i := range 5 {
		at := At(time.Duration(i) * time.Minute)
		ids = append(ids, MustTestDelivery(t, s, acc.ID, w.ID, at).ID)
		if i%2 == 0 {
			MustComplete(t, s, MustClaim(t, s, at, at.Add(lease), 1)[0], skygate.WebhookPending, 500, at,
				func(o *skygate.WebhookOutcome) { o.NextAttemptAt = At(24 * time.Hour) })
		}
	}
	other := MustCreateAccount(t, s)
	MustTestDelivery(t, s, other.ID, MustCreateWebhook(t, s, other.ID).ID, At(0))

	tests := []struct {
		name  string
		page  skygate.Page
		want  []string
		total int
	}{
		{"all newest first", skygate.Page{Limit: 10}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
		{"page", skygate.Page{Limit: 2, Offset: 1}, []string{ids[3], ids[2]}, 5},
		{"past the end", skygate.Page{Limit: 2, Offset: 5}, nil, 5},
		{"no limit", skygate.Page{}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, total, err := s.ListWebhookDeliveries(t.Context(), acc.ID, w.ID, tt.page)
			MustNoError(t, err, "ListWebhookDeliveries")
			if list == nil {
				t.Fatal("ListWebhookDeliveries returned a nil slice")
			}
			var got []string
			for _, d := range list {
				got = append(got, d.ID)
				wantEqual(t, "delivery as read alone", d, MustDelivery(t, s, acc.ID, w.ID, d.ID))
			}
			wantEqual(t, "ids", got, tt.want)
			wantEqual(t, "total", total, tt.total)
		})
	}
	_, _, err := s.ListWebhookDeliveries(t.Context(), acc.ID, skygate.NewID(), skygate.Page{})
	WantCode(t, err, skygate.CodeNotFound)
}

func testDeliveryCompleteAfterDelete(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	MustTestDelivery(t, s, acc.ID, w.ID, At(0))
	jobs := MustClaim(t, s, At(0), At(lease), 10)
	MustNoError(t, s.DeleteWebhook(t.Context(), acc.ID, w.ID), "DeleteWebhook")
	MustComplete(t, s, jobs[0], skygate.WebhookSucceeded, 200, At(time.Second))
}

// testDeliveryCompleteBatch writes the outcomes of several subscriptions in one call,
// out of order and with one subscription deleted meanwhile: each subscription's
// outcomes apply in attempt-time order and the deleted one's are skipped.
func testDeliveryCompleteBatch(t *testing.T, s skygate.Store) {
	type sub struct {
		acc string
		w   *skygate.WebhookSubscription
	}
	var subs []sub
	for range 4 {
		acc := MustCreateAccount(t, s).ID
		w := MustCreateWebhook(t, s, acc)
		MustTestDelivery(t, s, acc, w.ID, At(0))
		MustTestDelivery(t, s, acc, w.ID, At(time.Microsecond))
		subs = append(subs, sub{acc, w})
	}
	jobs := map[string][]*skygate.WebhookJob{}
	for _, j := range MustClaim(t, s, At(time.Second), At(time.Second).Add(lease), 100) {
		jobs[j.Delivery.SubscriptionID] = append(jobs[j.Delivery.SubscriptionID], j)
	}
	t1, t2 := At(2*time.Second), At(3*time.Second)
	outcome := func(j *skygate.WebhookJob, status skygate.WebhookDeliveryStatus, at time.Time, disable bool) *skygate.WebhookOutcome {
		o := &skygate.WebhookOutcome{
			DeliveryID: j.Delivery.ID, SubscriptionID: j.Delivery.SubscriptionID, Status: status,
			Attempt:       skygate.WebhookAttempt{Attempt: j.Delivery.AttemptCount, At: at, StatusCode: 500, Error: "HTTP 500"},
			NextAttemptAt: at.Add(time.Hour), Disable: disable, FailingCutoff: at.Add(-72 * time.Hour),
		}
		if status == skygate.WebhookSucceeded {
			o.Attempt.StatusCode, o.Attempt.Error = 200, ""
		}
		return o
	}
	healed, failing, gone, deleted := jobs[subs[0].w.ID], jobs[subs[1].w.ID], jobs[subs[2].w.ID], jobs[subs[3].w.ID]
	batch := []*skygate.WebhookOutcome{
		outcome(healed[1], skygate.WebhookSucceeded, t2, false), // failure, then success
		outcome(failing[0], skygate.WebhookSucceeded, t1, false),
		outcome(deleted[0], skygate.WebhookSucceeded, t1, false),
		outcome(healed[0], skygate.WebhookPending, t1, false),
		outcome(gone[0], skygate.WebhookFailed, t1, true),
		outcome(failing[1], skygate.WebhookPending, t2, false), // success, then failure
		outcome(deleted[1], skygate.WebhookPending, t1, false),
	}
	MustNoError(t, s.DeleteWebhook(t.Context(), subs[3].acc, subs[3].w.ID), "DeleteWebhook")
	MustNoError(t, s.CompleteWebhookDeliveries(t.Context(), batch), "CompleteWebhookDeliveries")

	wantEqual(t, "healed: failing since", MustWebhook(t, s, subs[0].acc, subs[0].w.ID).FailingSince, (*time.Time)(nil))
	wantEqual(t, "failing: failing since", MustWebhook(t, s, subs[1].acc, subs[1].w.ID).FailingSince, ptr(Stored(t2)))
	wantEqual(t, "gone: active", MustWebhook(t, s, subs[2].acc, subs[2].w.ID).Active, false)
	for _, o := range batch[:2] {
		acc := subs[0].acc
		if o.SubscriptionID == subs[1].w.ID {
			acc = subs[1].acc
		}
		d := MustDelivery(t, s, acc, o.SubscriptionID, o.DeliveryID)
		wantEqual(t, "status", d.Status, skygate.WebhookSucceeded)
		wantEqual(t, "attempts", len(d.Attempts), 1)
	}
	MustNoError(t, s.CompleteWebhookDeliveries(t.Context(), nil), "CompleteWebhookDeliveries of nothing")
}

// testDeliveryConcurrentClaims lets several claimers drain the due deliveries at one
// instant: every delivery is claimed exactly once.
func testDeliveryConcurrentClaims(t *testing.T, s skygate.Store) {
	const deliveries, claimers = 40, 8
	want := map[string]bool{}
	for range deliveries / 4 {
		acc := MustCreateAccount(t, s)
		w := MustCreateWebhook(t, s, acc.ID)
		for range 4 {
			want[MustTestDelivery(t, s, acc.ID, w.ID, At(0)).ID] = true
		}
	}
	var (
		mu     sync.Mutex
		counts = map[string]int{}
		wg     sync.WaitGroup
	)
	for range claimers {
		wg.Go(func() {
			for {
				jobs, err := s.ClaimWebhookDeliveries(t.Context(), At(time.Second), At(time.Hour), 3)
				if err != nil {
					t.Errorf("ClaimWebhookDeliveries: %v", err)
					return
				}
				if len(jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range jobs {
					counts[j.Delivery.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	wantEqual(t, "claimed", len(counts), len(want))
	for id, n := range counts {
		if n != 1 || !want[id] {
			t.Errorf("delivery %s claimed %d times (known: %v)", id, n, want[id])
		}
	}
}
