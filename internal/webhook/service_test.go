package webhook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/webhook"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	w := b.sub
	if !skygate.IsID(w.ID) || !w.Active || w.AccountID != b.account || !strings.HasSuffix(w.URL, "/hook") {
		t.Fatalf("created = %+v", w)
	}
	body, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The SPEC §2.1 fields, the filter and the record of the last disabling.
	if got := strings.Join(keys, ","); got != "active,created_at,disabled_at,disabled_reason,event_types,id,updated_at,url" {
		t.Fatalf("JSON fields = %s, want exactly the resource's fields", got)
	}
	if !bytes.Contains(body, []byte(`"event_types":[]`)) {
		t.Fatalf("no filter is not an empty array: %s", body)
	}
	if bytes.Contains(body, []byte(secret1)) || bytes.Contains(w.Secret, []byte(secret1)) {
		t.Fatal("the secret is visible in the JSON form or stored in plain text")
	}
	stored := b.mustSub(t)
	plain, err := b.box.Open(stored.Secret, []byte("skygate/webhook-secret/"+w.ID))
	if err != nil || string(plain) != secret1 {
		t.Fatalf("the stored secret opens to %q, %v", plain, err)
	}

	_, err = b.svc.Create(t.Context(), b.account, webhook.CreateRequest{URL: b.rc.URL, Secret: secret2})
	if skygate.ErrorCode(err) != skygate.CodeWebhookExists {
		t.Fatalf("second Create = %v, want WebhookExists", err)
	}
	list, err := b.svc.List(t.Context(), b.account)
	if err != nil || len(list) != 1 || list[0].ID != w.ID {
		t.Fatalf("List = %v, %v", list, err)
	}
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	store := sqlitetest.MustOpen(t)
	box := mustBox(t)
	svc := webhook.NewService(webhook.Config{Store: store, Box: box,
		Policy: webhook.Policy{Resolver: testResolver()}})
	acc := storetest.MustCreateAccount(t, store).ID
	tests := []struct {
		name   string
		req    webhook.CreateRequest
		fields []string
	}{
		{"both bad", webhook.CreateRequest{URL: "http://hooks.example.com/", Secret: "short"}, []string{"url", "secret"}},
		{"missing both", webhook.CreateRequest{}, []string{"url", "secret"}},
		{"private address", webhook.CreateRequest{URL: "https://10.0.0.1/", Secret: secret1}, []string{"url"}},
		{"bad whsec", webhook.CreateRequest{URL: "https://hooks.example.com/", Secret: "whsec_***not-base64***"}, []string{"secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Create(t.Context(), acc, tt.req)
			var e *skygate.Error
			if !errors.As(err, &e) || e.Code != skygate.CodeValidation {
				t.Fatalf("Create = %v, want ValidationFailed", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			if !equal(got, tt.fields) {
				t.Fatalf("fields = %v, want %v", got, tt.fields)
			}
		})
	}
	if list, _ := svc.List(t.Context(), acc); len(list) != 0 {
		t.Fatalf("a refused Create stored %v", list)
	}
	if _, err := svc.Create(t.Context(), acc, webhook.CreateRequest{URL: "https://hooks.example.com/in", Secret: secret2}); err != nil {
		t.Fatalf("valid Create: %v", err)
	}
}

// TestOtherAccount: every operation on another account's subscription or delivery,
// and on ids that are not UUIDs, is NotFound.
func TestOtherAccount(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	d := b.mustTest(t)
	other := storetest.MustCreateAccount(t, b.store).ID
	mustCreate(t, b.svc, other, b.rc.URL, secret2)
	ctx := t.Context()
	calls := map[string]func(acc, webhookID, deliveryID string) error{
		"Get":    func(a, w, _ string) error { _, err := b.svc.Get(ctx, a, w); return err },
		"Delete": func(a, w, _ string) error { return b.svc.Delete(ctx, a, w) },
		"RotateSecret": func(a, w, _ string) error {
			_, err := b.svc.RotateSecret(ctx, a, w, secret2)
			return err
		},
		"ChangeURL": func(a, w, _ string) error { _, err := b.svc.ChangeURL(ctx, a, w, b.rc.URL+"/x"); return err },
		"Test":      func(a, w, _ string) error { _, err := b.svc.Test(ctx, a, w, true); return err },
		"Deliveries": func(a, w, _ string) error {
			_, _, err := b.svc.Deliveries(ctx, a, w, skygate.Page{Limit: 10})
			return err
		},
		"Delivery": func(a, w, dl string) error { _, err := b.svc.Delivery(ctx, a, w, dl); return err },
		"Retry":    func(a, w, dl string) error { _, err := b.svc.Retry(ctx, a, w, dl); return err },
		"Patch": func(a, w, _ string) error {
			_, err := b.svc.Patch(ctx, a, w, webhook.PatchRequest{EventTypes: []byte(`["webhook.test"]`)})
			return err
		},
		"Enable": func(a, w, _ string) error { _, err := b.svc.Enable(ctx, a, w); return err },
		"Recover": func(a, w, _ string) error {
			_, err := b.svc.Recover(ctx, a, w, webhook.RecoverRequest{Since: "2020-01-01T00:00:00Z"})
			return err
		},
	}
	for name, call := range calls {
		for _, args := range [][3]string{
			{other, b.sub.ID, d.ID},
			{b.account, "not-a-uuid", d.ID},
		} {
			if err := call(args[0], args[1], args[2]); skygate.ErrorCode(err) != skygate.CodeNotFound {
				t.Errorf("%s%v = %v, want NotFound", name, args, err)
			}
		}
	}
	if _, err := b.svc.Retry(ctx, b.account, b.sub.ID, "nope"); skygate.ErrorCode(err) != skygate.CodeNotFound {
		t.Errorf("Retry with a bad delivery id = %v", err)
	}
	if got := b.mustSub(t); got.URL != b.sub.URL || len(got.EventTypes) != 0 {
		t.Fatalf("another account changed the subscription: %+v", got)
	}
}

func TestRotateAndChangeURL(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.clock.Advance(time.Minute)
	w, err := b.svc.RotateSecret(t.Context(), b.account, b.sub.ID, secret2)
	if err != nil {
		t.Fatal(err)
	}
	if !w.UpdatedAt.Equal(b.clock.Now()) || w.PreviousValidUntil == nil ||
		!w.PreviousValidUntil.Equal(b.clock.Now().Add(webhook.DefaultGrace)) {
		t.Fatalf("rotated = %+v", w)
	}
	if _, err := b.svc.RotateSecret(t.Context(), b.account, b.sub.ID, "short"); skygate.ErrorCode(err) != skygate.CodeValidation {
		t.Fatalf("RotateSecret with a short secret = %v", err)
	}
	if _, err := b.svc.ChangeURL(t.Context(), b.account, b.sub.ID, "ftp://x"); skygate.ErrorCode(err) != skygate.CodeValidation {
		t.Fatalf("ChangeURL with ftp = %v", err)
	}
	w, err = b.svc.ChangeURL(t.Context(), b.account, b.sub.ID, b.rc.URL+"/v2")
	if err != nil || w.URL != b.rc.URL+"/v2" {
		t.Fatalf("ChangeURL = %+v, %v", w, err)
	}
	b.mustTest(t)
	b.mustRunOnce(t, 1)
	if r := b.rc.requests()[0]; !strings.Contains(r.Signature, " ") {
		t.Fatalf("within the grace period one signature: %q", r.Signature)
	}
}

func TestDeleteAndResubscribe(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	d := b.mustTest(t)
	if err := b.svc.Delete(t.Context(), b.account, b.sub.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Delivery(t.Context(), b.account, b.sub.ID, d.ID); skygate.ErrorCode(err) != skygate.CodeNotFound {
		t.Fatalf("delivery of a deleted subscription = %v", err)
	}
	b.mustRunOnce(t, 0)
	w := mustCreate(t, b.svc, b.account, b.rc.URL, secret2)
	if w.ID == b.sub.ID {
		t.Fatal("the new subscription reused the id")
	}
}

func TestDeliveriesPage(t *testing.T) {
	t.Parallel()
	b := setup(t, answer(500))
	var ids []string
	for range 3 {
		ids = append(ids, b.mustTest(t).ID)
		b.clock.Advance(time.Second)
	}
	b.drain(t)
	list, total, err := b.svc.Deliveries(t.Context(), b.account, b.sub.ID, skygate.Page{Limit: 2})
	if err != nil || total != 3 || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[1] {
		t.Fatalf("Deliveries = %v (total %d), %v", list, total, err)
	}
	if len(list[0].Attempts) != 1 || list[0].Attempts[0].StatusCode != 500 || list[0].Attempts[0].LatencyMS < 0 {
		t.Fatalf("attempts = %+v", list[0].Attempts)
	}
	body, _ := json.Marshal(list[0])
	for _, k := range []string{`"subscription_id"`, `"event_id"`, `"event_type"`, `"message_id"`, `"status"`,
		`"attempt_count"`, `"next_attempt_at"`, `"last_status_code"`, `"last_error"`, `"attempts"`} {
		if !bytes.Contains(body, []byte(k)) {
			t.Errorf("delivery JSON lacks %s: %s", k, body)
		}
	}
	if bytes.Contains(body, []byte(b.account)) {
		t.Errorf("delivery JSON shows the account id: %s", body)
	}
}

func mustBox(t testing.TB) *seal.Box {
	t.Helper()
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	return box
}
