package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var accountTests = []test{
	{"CreateAndGet", testAccountCreateAndGet},
	{"TimesAreUTCMicroseconds", testAccountTimes},
	{"Duplicate", testAccountDuplicate},
	{"NotFound", testAccountNotFound},
	{"List", testAccountList},
	{"SetStatus", testAccountSetStatus},
	{"UpdatedSince", testAccountsUpdatedSince},
}

func testAccountCreateAndGet(t *testing.T, s skygate.Store) {
	want := MustCreateAccount(t, s, WithAccountName("Example Travel"))
	MustCreateAccount(t, s) // another row, so the lookups must select

	wantEqual(t, "Account", MustAccount(t, s, want.ID), want)
	got, err := s.AccountByName(t.Context(), "Example Travel")
	MustNoError(t, err, "AccountByName")
	wantEqual(t, "AccountByName", got, want)
}

func testAccountTimes(t *testing.T, s skygate.Store) {
	created := time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.FixedZone("UTC-7", -7*3600))
	updated := created.Add(1500 * time.Nanosecond)
	a := MustCreateAccount(t, s, WithAccountTimes(created, updated))

	got := MustAccount(t, s, a.ID)
	wantUTC(t, "Account", got.CreatedAt, got.UpdatedAt)
	wantEqual(t, "CreatedAt", got.CreatedAt, Stored(created))
	wantEqual(t, "UpdatedAt", got.UpdatedAt, Stored(updated))
	// The argument is normalised too, so the caller holds what a read returns.
	wantEqual(t, "argument after CreateAccount", a, got)
}

func testAccountDuplicate(t *testing.T, s skygate.Store) {
	first := MustCreateAccount(t, s)
	tests := []struct {
		name    string
		account skygate.Account
	}{
		{"name", skygate.Account{ID: NewID(), Name: first.Name, Status: skygate.AccountActive, CreatedAt: T0, UpdatedAt: T0}},
		{"id", skygate.Account{ID: first.ID, Name: "other " + NewID(), Status: skygate.AccountActive, CreatedAt: T0, UpdatedAt: T0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			WantCode(t, s.CreateAccount(t.Context(), &tt.account, Audit("CreateAccount")), skygate.CodeConflict)
		})
	}
	_, total, err := s.ListAccounts(t.Context(), skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAccounts")
	wantEqual(t, "accounts after duplicates", total, 1)
}

func testAccountNotFound(t *testing.T, s skygate.Store) {
	a := MustCreateAccount(t, s, WithAccountName("Exact Name"))
	tests := []struct {
		name string
		call func() error
	}{
		{"Account", func() error { _, err := s.Account(t.Context(), NewID()); return err }},
		{"AccountByName", func() error { _, err := s.AccountByName(t.Context(), "missing"); return err }},
		{"AccountByNameOtherCase", func() error { _, err := s.AccountByName(t.Context(), "exact name"); return err }},
		{"AccountByID as name", func() error { _, err := s.AccountByName(t.Context(), a.ID); return err }},
		{"SetAccountStatus", func() error {
			_, err := s.SetAccountStatus(t.Context(), NewID(), skygate.AccountSuspended, At(time.Hour), Audit("SetAccountStatus"))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			WantCode(t, tt.call(), skygate.CodeNotFound)
		})
	}
}

func testAccountList(t *testing.T, s skygate.Store) {
	got, total, err := s.ListAccounts(t.Context(), skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAccounts on an empty store")
	if len(got) != 0 || total != 0 {
		t.Fatalf("empty store: %d accounts, total %d", len(got), total)
	}

	// Created in reverse time order, so that insertion order and creation order differ.
	accounts := make([]*skygate.Account, 5)
	for i := len(accounts) - 1; i >= 0; i-- {
		created := At(time.Duration(i) * time.Minute)
		accounts[i] = MustCreateAccount(t, s, WithAccountTimes(created, created))
	}
	tests := []struct {
		name string
		page skygate.Page
		want []*skygate.Account
	}{
		{"first page", skygate.Page{Limit: 2}, accounts[:2]},
		{"middle page", skygate.Page{Limit: 2, Offset: 2}, accounts[2:4]},
		{"last partial page", skygate.Page{Limit: 2, Offset: 4}, accounts[4:]},
		{"past the end", skygate.Page{Limit: 2, Offset: 10}, []*skygate.Account{}},
		{"no limit", skygate.Page{}, accounts},
		{"negative offset", skygate.Page{Limit: 3, Offset: -1}, accounts[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := s.ListAccounts(t.Context(), tt.page)
			MustNoError(t, err, "ListAccounts")
			wantEqual(t, "total", total, len(accounts))
			wantEqual(t, "page", got, tt.want)
		})
	}
}

func testAccountSetStatus(t *testing.T, s skygate.Store) {
	a := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	now := At(time.Hour + 123456789*time.Nanosecond)

	got, err := s.SetAccountStatus(t.Context(), a.ID, skygate.AccountSuspended, now, Audit("SetAccountStatus"))
	MustNoError(t, err, "SetAccountStatus")
	want := *a
	want.Status = skygate.AccountSuspended
	want.UpdatedAt = Stored(now)
	wantEqual(t, "returned account", got, &want)
	wantEqual(t, "stored account", MustAccount(t, s, a.ID), &want)
	wantEqual(t, "other account", MustAccount(t, s, other.ID), other)

	later := now.Add(time.Minute)
	got, err = s.SetAccountStatus(t.Context(), a.ID, skygate.AccountActive, later, Audit("SetAccountStatus"))
	MustNoError(t, err, "SetAccountStatus back")
	wantEqual(t, "status", got.Status, skygate.AccountActive)
	wantEqual(t, "UpdatedAt", got.UpdatedAt, Stored(later))
}

func testAccountsUpdatedSince(t *testing.T, s skygate.Store) {
	old := MustCreateAccount(t, s, WithAccountTimes(At(0), At(time.Minute)))
	mid := MustCreateAccount(t, s, WithAccountTimes(At(0), At(2*time.Minute)))
	recent := MustCreateAccount(t, s, WithAccountTimes(At(0), At(3*time.Minute)))

	tests := []struct {
		name  string
		since time.Time
		want  []*skygate.Account
	}{
		{"before all", At(-time.Hour), []*skygate.Account{old, mid, recent}},
		{"exactly at one is inclusive", At(2 * time.Minute), []*skygate.Account{mid, recent}},
		{"just after one", At(2*time.Minute + time.Microsecond), []*skygate.Account{recent}},
		{"in another zone", At(3 * time.Minute).In(time.FixedZone("UTC+9", 9*3600)), []*skygate.Account{recent}},
		{"after all", At(time.Hour), []*skygate.Account{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.AccountsUpdatedSince(t.Context(), tt.since)
			MustNoError(t, err, "AccountsUpdatedSince")
			wantEqual(t, "accounts", got, tt.want)
		})
	}

	suspended, err := s.SetAccountStatus(t.Context(), old.ID, skygate.AccountSuspended, At(time.Hour), Audit("SetAccountStatus"))
	MustNoError(t, err, "SetAccountStatus")
	got, err := s.AccountsUpdatedSince(t.Context(), At(time.Hour))
	MustNoError(t, err, "AccountsUpdatedSince after a suspension")
	wantEqual(t, "accounts", got, []*skygate.Account{suspended})
}
