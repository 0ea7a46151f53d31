package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// mustBacklog returns the store's webhook backlog at now and fails unless it is want.
func mustBacklog(tb testing.TB, s skygate.Store, what string, now time.Time, want skygate.WebhookBacklog) {
	tb.Helper()
	got, err := s.WebhookBacklog(tb.Context(), now)
	MustNoError(tb, err, "WebhookBacklog")
	if !got.OldestDue.IsZero() {
		wantUTC(tb, what, got.OldestDue)
	}
	wantEqual(tb, what, got, want)
}

// testWebhookBacklog follows the backlog of two accounts through a delivery's life:
// due, in flight, due again when its lease ends, succeeded, failed for good, waiting
// for a retry, parked by an inactive subscription and back when it is active again.
func testWebhookBacklog(t *testing.T, s skygate.Store) {
	backlog := func(pending int, oldestDue time.Time) skygate.WebhookBacklog {
		if !oldestDue.IsZero() {
			oldestDue = Stored(oldestDue)
		}
		return skygate.WebhookBacklog{Pending: pending, OldestDue: oldestDue}
	}
	none := time.Time{}
	mustBacklog(t, s, "empty store", At(0), backlog(0, none))

	acc := MustCreateAccount(t, s)
	w := MustCreateWebhook(t, s, acc.ID)
	for _, due := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		MustTestDelivery(t, s, acc.ID, w.ID, At(due))
	}
	// Another account's delivery counts too, but not while its subscription is
	// inactive: no dispatcher sends it then.
	other := MustCreateAccount(t, s)
	ow := MustCreateWebhook(t, s, other.ID)
	MustTestDelivery(t, s, other.ID, ow.ID, At(5*time.Minute))
	MustDisableWebhook(t, s, other.ID, ow.ID)

	mustBacklog(t, s, "none due yet", At(30*time.Second), backlog(3, none))
	mustBacklog(t, s, "two due", At(150*time.Second), backlog(3, At(time.Minute)))

	first := MustClaim(t, s, At(time.Minute), At(time.Minute+lease), 1)[0]
	mustBacklog(t, s, "the first in flight", At(70*time.Second), backlog(3, none))
	mustBacklog(t, s, "the first's lease over", At(130*time.Second), backlog(3, At(time.Minute+lease)))
	MustComplete(t, s, first, skygate.WebhookSucceeded, 204, At(80*time.Second))
	mustBacklog(t, s, "the first delivered", At(130*time.Second), backlog(2, At(2*time.Minute)))

	second := MustClaim(t, s, At(2*time.Minute), At(2*time.Minute+lease), 1)[0]
	MustComplete(t, s, second, skygate.WebhookFailed, 500, At(2*time.Minute))
	mustBacklog(t, s, "the second failed for good", At(4*time.Minute), backlog(1, At(3*time.Minute)))

	third := MustClaim(t, s, At(3*time.Minute), At(3*time.Minute+lease), 1)[0]
	MustComplete(t, s, third, skygate.WebhookPending, 503, At(3*time.Minute),
		func(o *skygate.WebhookOutcome) { o.NextAttemptAt = At(time.Hour) })
	mustBacklog(t, s, "the third waiting for its retry", At(4*time.Minute), backlog(1, none))
	mustBacklog(t, s, "the third's retry due", At(2*time.Hour), backlog(1, At(time.Hour)))

	_, err := s.ChangeWebhookURL(t.Context(), other.ID, ow.ID, "https://fixed.example/", At(2*time.Hour))
	MustNoError(t, err, "ChangeWebhookURL")
	mustBacklog(t, s, "the other account's subscription active again", At(2*time.Hour), backlog(2, At(5*time.Minute)))
}
