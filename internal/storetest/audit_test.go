package storetest

import (
	"context"
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
	{"EveryWrite", testAuditEveryWrite},
}

// NewAuditEvent returns a record of the account's target by actor at T0, with a new
// ID and request id; the write it is given to stores it.
func NewAuditEvent(actor, action, accountID, target string) *skygate.AuditEvent {
	return &skygate.AuditEvent{
		ID: NewID(), Actor: actor, Action: action, TargetType: "account", TargetID: target,
		AccountID: accountID, RequestID: "req-" + NewID(), At: T0, Details: json.RawMessage(`{"status":"suspended"}`),
	}
}

// mustAppendAudit stores an audit event at T0+d with a write of its own: a new account
// (a record is only ever stored with its write).
func mustAppendAudit(tb testing.TB, s skygate.Store, actor, action, accountID, target string, d time.Duration) *skygate.AuditEvent {
	tb.Helper()
	e := NewAuditEvent(actor, action, accountID, target)
	e.At = At(d)
	a := &skygate.Account{ID: NewID(), Name: "account " + NewID(), Status: skygate.AccountActive, CreatedAt: T0, UpdatedAt: T0}
	MustNoError(tb, s.CreateAccount(tb.Context(), a, e), "CreateAccount with an audit record")
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

// testAuditWithWrite: a record given to a write is committed in the write's
// transaction: with a write that succeeds, once; with one that fails, not at all. (A
// write without a record is refused: testAuditedWrites.)
func testAuditWithWrite(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	a := &skygate.Account{ID: NewID(), Name: "audited", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}
	e := &skygate.AuditEvent{ID: NewID(), Actor: "alice", Action: "account.create", TargetType: "account",
		TargetID: a.ID, AccountID: a.ID, RequestID: "req-1", At: At(0)}
	recordsOf := func() []*skygate.AuditEvent {
		got, _, err := s.ListAuditEvents(ctx, skygate.AuditFilter{TargetID: a.ID}, skygate.Page{})
		MustNoError(t, err, "ListAuditEvents")
		return got
	}

	// A failing write (the name is taken) commits neither the write nor the record.
	MustNoError(t, s.CreateAccount(ctx, &skygate.Account{ID: NewID(), Name: "taken", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}, Audit("CreateAccount")), "CreateAccount")
	dup := &skygate.Account{ID: a.ID, Name: "taken", Status: skygate.AccountActive, CreatedAt: At(0), UpdatedAt: At(0)}
	WantCode(t, s.CreateAccount(ctx, dup, e), skygate.CodeConflict)
	if got := recordsOf(); len(got) != 0 {
		t.Fatalf("audit after a failed write: %+v", got)
	}

	// The write that succeeds commits it.
	MustNoError(t, s.CreateAccount(ctx, a, e), "CreateAccount")
	got := recordsOf()
	if len(got) != 1 || got[0].ID != e.ID || got[0].Actor != "alice" || got[0].RequestID != "req-1" {
		t.Fatalf("audit = %+v, want the one record", got)
	}
}

// writeFunc makes one audited write with e as its record.
type writeFunc func(ctx context.Context, e *skygate.AuditEvent) error

// auditedWrite is one audited write of the store. setup makes what the write needs and
// returns its calls: fail is the write refused (an unknown or taken target), write the
// write that succeeds, and done reports whether write's change is in the store.
type auditedWrite struct {
	name  string
	setup func(t *testing.T, s skygate.Store) (fail, write writeFunc, done func() bool)
}

var auditedWrites = []auditedWrite{
	{"CreateAccount", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		create := func(name string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				return s.CreateAccount(ctx, &skygate.Account{ID: NewID(), Name: name, Status: skygate.AccountActive, CreatedAt: T0, UpdatedAt: T0}, e)
			}
		}
		name := "account " + NewID()
		return create(MustCreateAccount(t, s).Name), create(name),
			func() bool { _, err := s.AccountByName(t.Context(), name); return err == nil }
	}},
	{"SetAccountStatus", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		set := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetAccountStatus(ctx, id, skygate.AccountSuspended, At(time.Second), e)
				return err
			}
		}
		return set(NewID()), set(acc.ID), func() bool { return MustAccount(t, s, acc.ID).Status == skygate.AccountSuspended }
	}},
	{"CreateApplication", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := newApplication(acc.ID)
		create := func(app *skygate.Application) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error { return s.CreateApplication(ctx, app, e) }
		}
		return create(newApplication(NewID())), create(app),
			func() bool { _, err := s.Application(t.Context(), acc.ID, app.ID); return err == nil }
	}},
	{"CreateFirstApplication", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := newApplication(acc.ID)
		first := func(app *skygate.Application) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, _, err := s.CreateFirstApplication(ctx, app, e)
				return err
			}
		}
		return first(newApplication(NewID())), first(app),
			func() bool { _, err := s.Application(t.Context(), acc.ID, app.ID); return err == nil }
	}},
	{"DeleteApplication", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := MustCreateApplication(t, s, acc.ID)
		del := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error { return s.DeleteApplication(ctx, acc.ID, id, e) }
		}
		return del(NewID()), del(app.ID),
			func() bool {
				_, err := s.Application(t.Context(), acc.ID, app.ID)
				return skygate.IsCode(err, skygate.CodeNotFound)
			}
	}},
	{"SetApplicationSecret", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := MustCreateApplication(t, s, acc.ID)
		set := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetApplicationSecret(ctx, acc.ID, id, []byte("new"), At(time.Hour), At(time.Second), e)
				return err
			}
		}
		return set(NewID()), set(app.ID), func() bool { return string(MustApplication(t, s, acc.ID, app.ID).SecretHash) == "new" }
	}},
	{"SetApplicationSecretRevokingTokens", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := MustCreateApplication(t, s, acc.ID)
		set := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetApplicationSecretRevokingTokens(ctx, acc.ID, id, []byte("new"), At(time.Second), e)
				return err
			}
		}
		return set(NewID()), set(app.ID), func() bool { return MustApplication(t, s, acc.ID, app.ID).TokenGeneration == 1 }
	}},
	{"SetApplicationCertificate", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		app := MustCreateApplication(t, s, acc.ID)
		const thumb = "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"
		set := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetApplicationCertificate(ctx, acc.ID, id, thumb, At(time.Second), e)
				return err
			}
		}
		return set(NewID()), set(app.ID), func() bool { return MustApplication(t, s, acc.ID, app.ID).ClientCertSHA256 == thumb }
	}},
	{"TransitionBookingAdmin", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		b := MustTransition(t, s, MustCreateBooking(t, s, acc.ID), At(time.Minute), PathTo(skygate.BookingConfirmed)...)
		use := func(id string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.TransitionBookingAdmin(ctx, id, skygate.TriggerUse, At(time.Hour), ApplyLikeService, e)
				return err
			}
		}
		return use(NewID()), use(b.ID), func() bool { return MustBooking(t, s, acc.ID, b.ID).Status == skygate.BookingCompleted }
	}},
	{"SetESIMPackages", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		pkg := NewESIMPackage()
		set := func(accountID string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				_, err := s.SetESIMPackages(ctx, accountID, []*skygate.ESIMPackage{pkg}, T0, e)
				return err
			}
		}
		return set(NewID()), set(acc.ID), func() bool { _, err := s.ESIMPackage(t.Context(), acc.ID, pkg.ID); return err == nil }
	}},
	{"ImportPoolProfiles", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		imp := func(accountID string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				return s.ImportPoolProfiles(ctx, accountID, NewPoolProfiles(2, T0), e)
			}
		}
		return imp(NewID()), imp(acc.ID), func() bool { available, _ := MustPoolCounts(t, s, acc.ID); return available == 2 }
	}},
	{"CreditBalance", func(t *testing.T, s skygate.Store) (writeFunc, writeFunc, func() bool) {
		acc := MustCreateAccount(t, s)
		credit := func(accountID string) writeFunc {
			return func(ctx context.Context, e *skygate.AuditEvent) error {
				return s.CreditBalance(ctx, &skygate.LedgerEntry{
					ID: skygate.NewID(), AccountID: accountID, Kind: skygate.LedgerCredit,
					Amount: skygate.Money{Amount: 500, Currency: "USD"}, CreatedAt: T0,
				}, e)
			}
		}
		return credit(NewID()), credit(acc.ID), func() bool { return MustBalances(t, s, acc.ID)["USD"] == 500 }
	}},
}

// newApplication returns an application of the account with random ids, not stored.
func newApplication(accountID string) *skygate.Application {
	return &skygate.Application{
		ID: NewID(), AccountID: accountID, Name: "application " + NewID(), ClientID: "client-" + NewID(),
		SecretHash: []byte("hash"), AllowedScopes: []string{skygate.ScopeBookingRead}, CreatedAt: T0, UpdatedAt: T0,
	}
}

// testAuditEveryWrite: every audited write commits its record with it or not at all.
// A refused write stores no record; a write whose record cannot be stored (its ID is
// taken) is rolled back and leaves the store as it was; a write that succeeds stores
// its record once.
func testAuditEveryWrite(t *testing.T, s skygate.Store) { checkAuditedWrites(t, s, auditedWrites) }

// checkAuditedWrites is testAuditEveryWrite of writes, so that a group of its own can
// prove its audited writes.
func checkAuditedWrites(t *testing.T, s skygate.Store, writes []auditedWrite) {
	// records returns the records of target.
	records := func(t *testing.T, target string) []*skygate.AuditEvent {
		t.Helper()
		got, _, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{TargetID: target}, skygate.Page{})
		MustNoError(t, err, "ListAuditEvents")
		return got
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			fail, write, done := w.setup(t, s)
			ctx := t.Context()

			refused := NewAuditEvent("alice", "refused", "", "refused-"+NewID())
			if err := fail(ctx, refused); err == nil {
				t.Fatal("the refused write succeeded")
			}
			if got := records(t, refused.TargetID); len(got) != 0 {
				t.Fatalf("a refused write left a record: %+v", got)
			}

			// Without a record the write is refused, and changes nothing.
			if err := write(ctx, nil); err == nil {
				t.Fatal("the write succeeded without an audit record")
			}
			if done() {
				t.Fatal("a write without an audit record was committed")
			}

			// A record that cannot be stored takes its write with it.
			taken := mustAppendAudit(t, s, "alice", "taken", "", "taken-"+NewID(), 0)
			clash := NewAuditEvent("alice", "clash", "", "clash-"+NewID())
			clash.ID = taken.ID
			if err := write(ctx, clash); err == nil {
				t.Fatal("a write whose record could not be stored succeeded")
			}
			if done() {
				t.Fatal("a write whose record could not be stored was committed")
			}
			if got := records(t, clash.TargetID); len(got) != 0 {
				t.Fatalf("a write that failed left a record: %+v", got)
			}

			e := NewAuditEvent("alice", "done", "", "done-"+NewID())
			MustNoError(t, write(ctx, e), "the audited write")
			if !done() {
				t.Fatal("the audited write did not change the store")
			}
			if got := records(t, e.TargetID); len(got) != 1 || got[0].ID != e.ID || got[0].Action != "done" {
				t.Fatalf("records of the write: %+v, want its one record", got)
			}
		})
	}
}
