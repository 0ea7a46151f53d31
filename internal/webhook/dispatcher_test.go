package webhook_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// answer returns a respond function that answers the n-th request of each
// webhook-id with codes[n-1], and 200 after the list.
func answer(codes ...int) func(w http.ResponseWriter, r *request, n int) {
	return func(w http.ResponseWriter, _ *request, n int) {
		if n <= len(codes) {
			w.WriteHeader(codes[n-1])
		}
	}
}

func TestDeliverSuccess(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)

	reqs := b.rc.requests()
	if len(reqs) != 1 {
		t.Fatalf("received %d requests", len(reqs))
	}
	r := reqs[0]
	if r.ID != d.MessageID || r.ID != d.EventID {
		t.Fatalf("webhook-id = %q, want the event id %q", r.ID, d.EventID)
	}
	if r.Timestamp != strconv.FormatInt(b.clock.Now().Unix(), 10) {
		t.Fatalf("webhook-timestamp = %q, want the clock's %d", r.Timestamp, b.clock.Now().Unix())
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Fatalf("Content-Type = %q", got)
	}
	// The clock is the real time here, so the library's timestamp tolerance applies.
	if err := verifier(t, secret1).Verify(r.Body, r.Header); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	var env struct {
		ID, Type, AccountID string
		CreatedAt           time.Time `json:"created_at"`
		Data                skygate.WebhookTestData
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.ID != d.EventID || env.Type != skygate.EventWebhookTest || env.Data.SubscriptionID != b.sub.ID {
		t.Fatalf("envelope = %s", r.Body)
	}
	for _, k := range []string{`"id"`, `"type"`, `"created_at"`, `"account_id"`, `"data"`} {
		if !bytes.Contains(r.Body, []byte(k)) {
			t.Errorf("envelope lacks %s: %s", k, r.Body)
		}
	}

	got := b.mustDelivery(t, d.ID)
	if got.Status != skygate.WebhookSucceeded || got.AttemptCount != 1 || got.LastStatusCode != 200 || got.NextAttemptAt != nil {
		t.Fatalf("delivery = %+v", got)
	}
	if len(got.Attempts) != 1 || got.Attempts[0].StatusCode != 200 || got.Attempts[0].Error != "" {
		t.Fatalf("attempts = %+v", got.Attempts)
	}
	b.mustRunOnce(t, 0)
	if s := b.disp.Stats(); s.Claimed != 1 || s.Succeeded != 1 || s.InFlight != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

// TestRetriesWithBackoff fails three attempts with 500 and moves the clock along the
// schedule: every attempt carries the same webhook-id and body and a valid signature.
func TestRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	b := setup(t, answer(500, 500, 500))
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)
	for i, wait := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute} {
		next := b.mustDelivery(t, d.ID).NextAttemptAt
		if next == nil || !next.Equal(b.clock.Now().Add(wait)) {
			t.Fatalf("after attempt %d next attempt at %v, want now+%v", i+1, next, wait)
		}
		b.clock.Advance(wait - time.Second)
		b.mustRunOnce(t, 0) // not yet due
		b.clock.Advance(time.Second)
		b.mustRunOnce(t, 1)
	}
	reqs := b.rc.requests()
	if len(reqs) != 4 {
		t.Fatalf("received %d requests, want 4", len(reqs))
	}
	for _, r := range reqs {
		if r.ID != reqs[0].ID || !bytes.Equal(r.Body, reqs[0].Body) {
			t.Fatalf("attempts differ: id %q body %s vs id %q body %s", r.ID, r.Body, reqs[0].ID, reqs[0].Body)
		}
		mustVerify(t, r, secret1)
	}
	if reqs[0].Timestamp == reqs[3].Timestamp {
		t.Fatal("every attempt has the same webhook-timestamp")
	}
	got := b.mustDelivery(t, d.ID)
	if got.Status != skygate.WebhookSucceeded || got.AttemptCount != 4 {
		t.Fatalf("delivery = %+v", got)
	}
	var codes []int
	for _, a := range got.Attempts {
		codes = append(codes, a.StatusCode)
		if a.StatusCode == 500 && a.Error != "HTTP 500 Internal Server Error" {
			t.Errorf("attempt error = %q", a.Error)
		}
	}
	if want := []int{500, 500, 500, 200}; !equal(codes, want) {
		t.Fatalf("attempt codes = %v, want %v", codes, want)
	}
	if b.mustSub(t).FailingSince != nil {
		t.Fatal("a success did not clear the failure time")
	}
}

// TestRetriesExhausted: eight failed attempts fail the delivery; a manual retry
// gives it one more.
func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	b := setup(t, answer(503, 503, 503, 503, 503, 503, 503, 503, 503))
	d := b.mustTest(t)
	for i := range 8 {
		b.mustRunOnce(t, 1)
		if next := b.mustDelivery(t, d.ID).NextAttemptAt; i < 7 {
			b.clock.Advance(next.Sub(b.clock.Now()))
		}
	}
	b.clock.Advance(24 * time.Hour)
	b.mustRunOnce(t, 0)
	got := b.mustDelivery(t, d.ID)
	if got.Status != skygate.WebhookFailed || got.AttemptCount != 8 || len(got.Attempts) != 8 || got.NextAttemptAt != nil {
		t.Fatalf("delivery = %+v", got)
	}
	if !b.mustSub(t).Active {
		t.Fatal("the subscription turned inactive before 72 h")
	}
	if _, err := b.svc.Retry(t.Context(), b.account, b.sub.ID, d.ID); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	b.mustRunOnce(t, 1) // attempt 9: 503 again
	if got := b.mustDelivery(t, d.ID); got.Status != skygate.WebhookFailed || got.AttemptCount != 9 {
		t.Fatalf("after a manual retry: %+v", got)
	}
	b.mustRunOnce(t, 0)
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	var dateAt time.Time
	b := setup(t, func(w http.ResponseWriter, _ *request, n int) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "120") // longer than the 5 s of the schedule
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.Header().Set("Retry-After", dateAt.Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
		case 3:
			w.Header().Set("Retry-After", "1") // shorter than the 30 min: ignored
			w.WriteHeader(http.StatusTooManyRequests)
		case 4:
			w.Header().Set("Retry-After", "172800") // two days: capped at MaxRetryAfter
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)
	b.clock.Advance(119 * time.Second)
	b.mustRunOnce(t, 0)
	b.clock.Advance(time.Second)
	dateAt = b.clock.Now().Add(40 * time.Minute) // longer than the 5 min of the schedule
	b.mustRunOnce(t, 1)
	if next := b.mustDelivery(t, d.ID).NextAttemptAt; !next.Equal(dateAt) {
		t.Fatalf("next attempt at %v, want the Retry-After date %v", next, dateAt)
	}
	b.clock.Advance(40 * time.Minute)
	b.mustRunOnce(t, 1)
	if next := b.mustDelivery(t, d.ID).NextAttemptAt; !next.Equal(b.clock.Now().Add(30 * time.Minute)) {
		t.Fatalf("next attempt at %v, want the schedule's 30 min", next)
	}
	b.clock.Advance(30 * time.Minute)
	b.mustRunOnce(t, 1)
	if next := b.mustDelivery(t, d.ID).NextAttemptAt; !next.Equal(b.clock.Now().Add(webhook.DefaultMaxRetryAfter)) {
		t.Fatalf("next attempt at %v, want Retry-After capped at %v", next, webhook.DefaultMaxRetryAfter)
	}
}

// TestResponseReadIsCapped: a receiver that answers 200 with an endless body is a
// success, and the dispatcher reads at most MaxResponseBytes of it before hanging up
// (the receiver manages to write little more than the sockets' buffers hold).
func TestResponseReadIsCapped(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	done := make(chan struct{})
	b := setup(t, func(w http.ResponseWriter, _ *request, _ int) {
		defer close(done)
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 32<<10)
		for written.Load() < 1<<30 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)
	<-done
	if got := b.mustDelivery(t, d.ID); got.Status != skygate.WebhookSucceeded {
		t.Fatalf("delivery = %+v", got)
	}
	if n := written.Load(); n > 16<<20 {
		t.Fatalf("the receiver wrote %d bytes before the dispatcher hung up; the cap is %d", n, webhook.MaxResponseBytes)
	}
}

// TestGoneDisables: 410 fails the delivery and deactivates the subscription; its other
// pending delivery is parked until change-url reactivates it.
func TestGoneDisables(t *testing.T) {
	t.Parallel()
	var code atomic.Int32
	code.Store(500)
	b := setup(t, func(w http.ResponseWriter, _ *request, _ int) { w.WriteHeader(int(code.Load())) })
	parked := b.mustTest(t)
	b.mustRunOnce(t, 1) // 500: retry in 5 s
	code.Store(410)
	first := b.mustTest(t)
	b.mustRunOnce(t, 1) // 410
	got := b.mustDelivery(t, first.ID)
	if got.Status != skygate.WebhookFailed || got.LastStatusCode != 410 {
		t.Fatalf("delivery = %+v", got)
	}
	if b.mustSub(t).Active {
		t.Fatal("410 did not deactivate the subscription")
	}
	b.clock.Advance(time.Hour)
	b.mustRunOnce(t, 0) // the other delivery is parked
	if got := b.mustDelivery(t, parked.ID); got.Status != skygate.WebhookPending {
		t.Fatalf("parked delivery = %+v", got)
	}
	if _, err := b.svc.Test(t.Context(), b.account, b.sub.ID, true); skygate.ErrorCode(err) != skygate.CodeConflict {
		t.Fatalf("Test on an inactive subscription = %v, want Conflict", err)
	}
	if _, err := b.svc.Retry(t.Context(), b.account, b.sub.ID, first.ID); skygate.ErrorCode(err) != skygate.CodeConflict {
		t.Fatalf("Retry on an inactive subscription = %v, want Conflict", err)
	}

	code.Store(200)
	w, err := b.svc.ChangeURL(t.Context(), b.account, b.sub.ID, b.rc.URL+"/new")
	if err != nil || !w.Active {
		t.Fatalf("ChangeURL = %+v, %v", w, err)
	}
	b.mustRunOnce(t, 1)
	if got := b.mustDelivery(t, parked.ID); got.Status != skygate.WebhookSucceeded || got.AttemptCount != 2 {
		t.Fatalf("parked delivery after reactivation = %+v", got)
	}
	if s := b.disp.Stats(); s.Disabled != 1 || s.Failed != 1 || s.Succeeded != 1 || s.Retried != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

// TestRedirectIsFailure: a 3xx answer is not followed and counts as a failure.
func TestRedirectIsFailure(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, nil)
	b := setup(t, func(w http.ResponseWriter, _ *request, _ int) {
		w.Header().Set("Location", target.URL+"/stolen")
		w.WriteHeader(http.StatusFound)
	})
	d := b.mustTest(t)
	b.mustRunOnce(t, 1)
	got := b.mustDelivery(t, d.ID)
	if got.Status != skygate.WebhookPending || got.LastStatusCode != 302 || !strings.Contains(got.LastError, "redirects are not followed") {
		t.Fatalf("delivery = %+v", got)
	}
	if n := len(target.requests()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

// TestRotationSignsTwice: after rotate-secret both secrets verify until the grace
// period ends; then only the new one does.
func TestRotationSignsTwice(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	if _, err := b.svc.RotateSecret(t.Context(), b.account, b.sub.ID, secret2); err != nil {
		t.Fatalf("RotateSecret: %v", err)
	}
	b.mustTest(t)
	b.mustRunOnce(t, 1)
	r := b.rc.requests()[0]
	sigs := strings.Split(r.Signature, " ")
	if len(sigs) != 2 {
		t.Fatalf("webhook-signature = %q, want two signatures", r.Signature)
	}
	mustVerify(t, r, secret2)
	mustVerify(t, r, secret1)
	newOnly := r
	newOnly.Header = r.Header.Clone()
	newOnly.Header.Set("webhook-signature", sigs[0])
	mustVerify(t, newOnly, secret2) // the new secret's signature comes first

	b.clock.Advance(24*time.Hour + time.Second)
	b.mustTest(t)
	b.mustRunOnce(t, 1)
	r = b.rc.requests()[1]
	if strings.Contains(r.Signature, " ") {
		t.Fatalf("after the grace period webhook-signature = %q, want one", r.Signature)
	}
	mustVerify(t, r, secret2)
	if err := verifier(t, secret1).VerifyIgnoringTimestamp(r.Body, r.Header); err == nil {
		t.Fatal("the old secret still verifies after the grace period")
	}
}

// TestInactiveAfter72Hours: a subscription whose deliveries fail for 72 hours with no
// success turns inactive; rotate-secret turns it active again.
func TestInactiveAfter72Hours(t *testing.T) {
	t.Parallel()
	b := setup(t, func(w http.ResponseWriter, _ *request, _ int) { w.WriteHeader(500) })
	start := b.clock.Now()
	for b.clock.Now().Sub(start) < 72*time.Hour {
		b.mustTest(t)
		b.drain(t)
		if !b.mustSub(t).Active {
			t.Fatalf("inactive after %v", b.clock.Now().Sub(start))
		}
		b.clock.Advance(6 * time.Hour)
	}
	b.mustTest(t)
	b.drain(t)
	if b.mustSub(t).Active {
		t.Fatal("still active after 72 h of failures")
	}
	w, err := b.svc.RotateSecret(t.Context(), b.account, b.sub.ID, secret2)
	if err != nil || !w.Active {
		t.Fatalf("RotateSecret = %+v, %v", w, err)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
