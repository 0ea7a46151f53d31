package webhook_test

import (
	"errors"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// wantFields fails unless err is a CodeValidation error naming exactly fields.
func wantFields(t *testing.T, what string, err error, fields ...string) {
	t.Helper()
	var e *skygate.Error
	if !errors.As(err, &e) || e.Code != skygate.CodeValidation {
		t.Fatalf("%s = %v, want ValidationFailed", what, err)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field)
	}
	if !slices.Equal(got, fields) {
		t.Fatalf("%s: fields %v, want %v", what, got, fields)
	}
}

func TestCheckEventTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		types  []string
		fields []string
	}{
		{"none", nil, nil},
		{"every subscribable type", skygate.SubscribableEventTypes(), nil},
		{"unknown", []string{"booking.status.changed", "booking.created"}, []string{"t[1]"}},
		{"the disabled notice", []string{skygate.EventWebhookSubscriptionDisabled}, []string{"t[0]"}},
		{"a repeat", []string{"webhook.test", "pass.status.changed", "webhook.test"}, []string{"t[2]"}},
		{"empty string", []string{""}, []string{"t[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range webhook.CheckEventTypes("t", tt.types) {
				got = append(got, f.Field)
			}
			if !slices.Equal(got, tt.fields) {
				t.Fatalf("fields %v, want %v", got, tt.fields)
			}
		})
	}
}

// TestFilter: the filter is set at create and by Patch, and a webhook.test it leaves
// out is a conflict that writes nothing.
func TestFilter(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := t.Context()
	_, err := b.svc.Create(ctx, b.account, webhook.CreateRequest{URL: b.rc.URL, Secret: secret2, EventTypes: []string{"nope"}})
	wantFields(t, "Create with an unknown type", err, "event_types[0]")

	for _, tt := range []struct {
		name  string
		patch string
		want  []string
	}{
		{"replace", `["booking.status.changed","pass.status.changed"]`, []string{"booking.status.changed", "pass.status.changed"}},
		{"absent leaves it", ``, []string{"booking.status.changed", "pass.status.changed"}},
		{"null clears it", `null`, []string{}},
		{"one type", `["esim.status.changed"]`, []string{"esim.status.changed"}},
		{"[] clears it", `[]`, []string{}},
	} {
		w, err := b.svc.Patch(ctx, b.account, b.sub.ID, webhook.PatchRequest{EventTypes: []byte(tt.patch)})
		if err != nil || !slices.Equal(w.EventTypes, tt.want) || !slices.Equal(b.mustSub(t).EventTypes, tt.want) {
			t.Fatalf("%s: Patch = %+v, %v; want %v", tt.name, w, err, tt.want)
		}
	}
	for patch, field := range map[string]string{
		`"webhook.test"`:                    "event_types",
		`[1]`:                               "event_types",
		`["webhook.test","webhook.test"]`:   "event_types[1]",
		`["webhook.subscription.disabled"]`: "event_types[0]",
	} {
		_, err := b.svc.Patch(ctx, b.account, b.sub.ID, webhook.PatchRequest{EventTypes: []byte(patch)})
		wantFields(t, "Patch "+patch, err, field)
	}

	if _, err := b.svc.Patch(ctx, b.account, b.sub.ID, webhook.PatchRequest{EventTypes: []byte(`["booking.status.changed"]`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Test(ctx, b.account, b.sub.ID, true); skygate.ErrorCode(err) != skygate.CodeConflict {
		t.Fatalf("Test with webhook.test filtered out = %v, want Conflict", err)
	}
	b.mustRunOnce(t, 0)
}

// TestRecover: a delivery that failed for good is sent again with the same
// webhook-id after a recovery; times in the future or not RFC 3339 are refused, and
// a time before the retention window is moved to its start.
func TestRecover(t *testing.T) {
	t.Parallel()
	var code atomic.Int32
	code.Store(410)
	b := setup(t, func(w http.ResponseWriter, _ *request, _ int) { w.WriteHeader(int(code.Load())) })
	ctx := t.Context()
	start := b.clock.Now()
	d := b.mustTest(t)
	b.mustRunOnce(t, 1) // 410: failed, subscription disabled
	if b.mustSub(t).Active {
		t.Fatal("410 did not deactivate the subscription")
	}
	since := start.Add(-time.Minute).Format(time.RFC3339Nano)
	if _, err := b.svc.Recover(ctx, b.account, b.sub.ID, webhook.RecoverRequest{Since: since}); skygate.ErrorCode(err) != skygate.CodeConflict {
		t.Fatalf("Recover of an inactive subscription = %v, want Conflict", err)
	}
	code.Store(204)
	w, err := b.svc.Enable(ctx, b.account, b.sub.ID)
	if err != nil || !w.Active || w.DisabledAt != nil {
		t.Fatalf("Enable = %+v, %v", w, err)
	}
	b.clock.Advance(time.Hour)
	r, err := b.svc.Recover(ctx, b.account, b.sub.ID, webhook.RecoverRequest{Since: since})
	if err != nil || r.Enqueued != 1 || !r.Since.Equal(start.Add(-time.Minute).Truncate(time.Second)) || r.NextSince != nil {
		t.Fatalf("Recover = %+v, %v", r, err)
	}
	b.mustRunOnce(t, 1)
	reqs := b.rc.requests()
	if len(reqs) != 2 || reqs[0].ID != reqs[1].ID || reqs[1].ID != d.EventID {
		t.Fatalf("requests %d, ids %v", len(reqs), b.rc.ids())
	}
	if got := b.mustDelivery(t, d.ID); got.Status != skygate.WebhookSucceeded || got.AttemptCount != 2 || len(got.Attempts) != 2 {
		t.Fatalf("recovered delivery = %+v", got)
	}

	for _, bad := range []string{"", "yesterday", "2026-01-02", "2026-01-02 15:04:05Z", b.clock.Now().Add(time.Minute).Format(time.RFC3339)} {
		_, err := b.svc.Recover(ctx, b.account, b.sub.ID, webhook.RecoverRequest{Since: bad})
		wantFields(t, "Recover since "+bad, err, "since")
	}
	r, err = b.svc.Recover(ctx, b.account, b.sub.ID, webhook.RecoverRequest{Since: "2000-01-01T00:00:00Z"})
	if err != nil || !r.Since.Equal(b.clock.Now().Add(-retention)) || r.Enqueued != 1 {
		t.Fatalf("Recover since 2000 = %+v, %v; want since the retention window", r, err)
	}
}
