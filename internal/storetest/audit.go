package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var auditTests = []test{
	{"AppendAndList", testAuditAppendAndList},
	{"Filters", testAuditFilters},
	{"ApplicationAdmin", testApplicationAdmin},
	{"WithWrite", testAuditWithWrite},
}

// mustAppendAudit stores an audit event at T0+d.
func mustAppendAudit(tb testing.TB, s skygate.Store, actor, action, accountID, target string, d time.Duration) *skygate.AuditEvent {
	tb.Helper()
	e := &skygate.AuditEvent{
		ID: NewID(), Actor: actor, Action: action, TargetType: "account", TargetID: target,
		AccountID: accountID, RequestID: "req-" + NewID(), At: At(d), Details: json.RawMessage(`{"status":"suspended"}`),
	}
	MustNoError(tb, s.AppendAudit(tb.Context(), e), "AppendAudit")
	return e
}

func testAuditAppendAndList(t *testing.T, s skygate.Store) {
	first := mustAppendAudit(t, s, "alice", "account.create", "a1", "a1", 0)
	second := mustAppendAudit(t, s, "bob", "account.update", "a1", "a1", time.Second)
	got, total, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAuditEvents")
	if total != 2 || len(got) != 2 || got[0].ID != second.ID || got[1].ID != first.ID {
		t.Fatalf("list = %d %+v, want newest first", total, got)
	}
	g := got[1]
	if g.Actor != "alice" || g.Action != "account.create" || g.TargetType != "account" || g.TargetID != "a1" ||
		g.AccountID != "a1" || g.RequestID != first.RequestID || !g.At.Equal(Stored(first.At)) || string(g.Details) != `{"status":"suspended"}` {
		t.Errorf("round trip = %+v, want %+v", g, first)
	}
	page, total, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1, Offset: 1})
	MustNoError(t, err, "ListAuditEvents page")
	if total != 2 || len(page) != 1 || page[0].ID != first.ID {
		t.Errorf("page = %d %+v", total, page)
	}
}

func testAuditFilters(t *testing.T, s skygate.Store) {
	mustAppendAudit(t, s, "alice", "account.create", "a1", "a1", 0)
	mustAppendAudit(t, s, "alice", "application.create", "a1", "app1", time.Second)
	mustAppendAudit(t, s, "bob", "application.create", "a2", "app2", 2*time.Second)
	for _, tc := range []struct {
		f    skygate.AuditFilter
		want int
	}{
		{skygate.AuditFilter{}, 3},
		{skygate.AuditFilter{Actor: "alice"}, 2},
		{skygate.AuditFilter{Action: "application.create"}, 2},
		{skygate.AuditFilter{AccountID: "a2"}, 1},
		{skygate.AuditFilter{TargetID: "app1"}, 1},
		{skygate.AuditFilter{Actor: "alice", Action: "application.create"}, 1},
		{skygate.AuditFilter{Actor: "nobody"}, 0},
	} {
		got, total, err := s.ListAuditEvents(t.Context(), tc.f, skygate.Page{Limit: 10})
		MustNoError(t, err, "ListAuditEvents")
		if total != tc.want || len(got) != tc.want {
			t.Errorf("filter %+v: %d events (total %d), want %d", tc.f, len(got), total, tc.want)
		}
	}
}

func testApplicationAdmin(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	got, err := s.ApplicationAdmin(t.Context(), app.ID)
	MustNoError(t, err, "ApplicationAdmin")
	if got.ID != app.ID || got.AccountID != acc.ID || got.ClientID != app.ClientID {
		t.Errorf("ApplicationAdmin = %+v", got)
	}
	_, err = s.ApplicationAdmin(t.Context(), NewID())
	WantCode(t, err, skygate.CodeNotFound)
}

// testAuditWithWrite: a record attached with skygate.WithAudit is committed in the
// write's transaction: with a write that succeeds, once, however many writes follow;
// with one that fails, not at all, and it stays for the next write of the request.
func testAuditWithWrite(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	a := &skygate.Account{ID: NewID(), Name: "audited", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}
	e := &skygate.AuditEvent{ID: NewID(), Actor: "alice", Action: "account.create", TargetType: "account",
		TargetID: a.ID, AccountID: a.ID, RequestID: "req-1", At: At(0)}

	// A failing write (the name is taken) commits neither the write nor the record.
	MustNoError(t, s.CreateAccount(ctx, &skygate.Account{ID: NewID(), Name: "taken", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}), "CreateAccount")
	wctx, pending := skygate.WithAudit(ctx, e)
	dup := &skygate.Account{ID: a.ID, Name: "taken", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}
	WantCode(t, s.CreateAccount(wctx, dup), skygate.CodeConflict)
	if pending.Taken() {
		t.Fatal("a failed write kept the audit record")
	}
	if _, total, err := s.ListAuditEvents(ctx, skygate.AuditFilter{}, skygate.Page{Limit: 10}); err != nil || total != 0 {
		t.Fatalf("audit after a failed write: %d, %v", total, err)
	}

	// The next write of the request commits it; later writes do not repeat it.
	MustNoError(t, s.CreateAccount(wctx, a), "CreateAccount")
	if !pending.Taken() {
		t.Fatal("the committed write did not take the audit record")
	}
	_, err := s.SetAccountStatus(wctx, a.ID, skygate.AccountSuspended, At(time.Second))
	MustNoError(t, err, "SetAccountStatus")
	got, total, err := s.ListAuditEvents(ctx, skygate.AuditFilter{}, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAuditEvents")
	if total != 1 || got[0].ID != e.ID || got[0].Actor != "alice" || got[0].RequestID != "req-1" {
		t.Fatalf("audit = %d %+v, want the one record", total, got)
	}
}
