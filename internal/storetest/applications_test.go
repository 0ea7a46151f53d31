package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var applicationTests = []test{
	{"CreateAndGet", testApplicationCreateAndGet},
	{"NilScopes", testApplicationNilScopes},
	{"Audiences", testApplicationAudiences},
	{"DuplicateClientID", testApplicationDuplicate},
	{"UnknownAccount", testApplicationUnknownAccount},
	{"ByClientID", testApplicationByClientID},
	{"OtherAccountIsNotFound", testApplicationOtherAccount},
	{"List", testApplicationList},
	{"Delete", testApplicationDelete},
	{"SetSecret", testApplicationSetSecret},
	{"SetSecretWithGrace", testApplicationSetSecretWithGrace},
	{"SetCertificate", testApplicationSetCertificate},
	{"RevokeTokens", testApplicationRevokeTokens},
	{"RevokeTokensConcurrently", testApplicationRevokeConcurrently},
	{"CreateFirst", testApplicationCreateFirst},
	{"CreateFirstConcurrently", testApplicationCreateFirstConcurrently},
}

func testApplicationCreateAndGet(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	created := time.Date(2025, 1, 2, 3, 4, 5, 678901234, time.FixedZone("UTC+5:30", 5*3600+1800))
	want := MustCreateApplication(t, s, acc.ID, func(app *skygate.Application) {
		app.Sandbox = true
		app.ClientCertSHA256 = "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"
		app.SecretHash = []byte{0, 1, 2, 0xfe, 0xff}
		app.PreviousSecretHash = []byte{3, 4, 0}
		app.PreviousSecretExpiresAt = created.Add(time.Hour + 999*time.Nanosecond)
		app.AllowedScopes = []string{skygate.ScopeCatalogLoungesRead, skygate.ScopeESIMWrite}
		app.CreatedAt, app.UpdatedAt = created, created.Add(time.Second)
	})
	MustCreateApplication(t, s, acc.ID)

	got := MustApplication(t, s, acc.ID, want.ID)
	wantEqual(t, "Application", got, want)
	wantUTC(t, "Application", got.CreatedAt, got.UpdatedAt)
	wantEqual(t, "CreatedAt", got.CreatedAt, Stored(created))
	wantEqual(t, "UpdatedAt", got.UpdatedAt, Stored(created.Add(time.Second)))
}

func testApplicationNilScopes(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID, func(app *skygate.Application) { app.AllowedScopes = nil })
	got := MustApplication(t, s, acc.ID, app.ID)
	if got.AllowedScopes == nil || len(got.AllowedScopes) != 0 {
		t.Fatalf("AllowedScopes = %#v, want an empty, non-nil list", got.AllowedScopes)
	}
}

func testApplicationDuplicate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	first := MustCreateApplication(t, s, acc.ID)
	tests := []struct {
		name      string
		accountID string
		id        string
	}{
		{"same account", acc.ID, NewID()},
		{"other account", other.ID, NewID()},
		{"same id", acc.ID, first.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := &skygate.Application{ID: tt.id, AccountID: tt.accountID, Name: "dup",
				ClientID: first.ClientID, SecretHash: []byte("h"), CreatedAt: T0, UpdatedAt: T0}
			WantCode(t, s.CreateApplication(t.Context(), app, Audit("CreateApplication")), skygate.CodeConflict)
		})
	}
}

func testApplicationUnknownAccount(t *testing.T, s skygate.Store) {
	app := &skygate.Application{ID: NewID(), AccountID: NewID(), Name: "orphan",
		ClientID: "client-" + NewID(), SecretHash: []byte("h"), CreatedAt: T0, UpdatedAt: T0}
	WantCode(t, s.CreateApplication(t.Context(), app, Audit("CreateApplication")), skygate.CodeNotFound)
}

func testApplicationByClientID(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	MustCreateApplication(t, s, MustCreateAccount(t, s).ID)

	gotApp, gotAcc, err := s.ApplicationByClientID(t.Context(), app.ClientID)
	MustNoError(t, err, "ApplicationByClientID")
	wantEqual(t, "application", gotApp, app)
	wantEqual(t, "account", gotAcc, acc)

	// A suspended account is still returned; the caller decides to refuse it.
	suspended, err := s.SetAccountStatus(t.Context(), acc.ID, skygate.AccountSuspended, At(time.Hour), Audit("SetAccountStatus"))
	MustNoError(t, err, "SetAccountStatus")
	_, gotAcc, err = s.ApplicationByClientID(t.Context(), app.ClientID)
	MustNoError(t, err, "ApplicationByClientID of a suspended account")
	wantEqual(t, "suspended account", gotAcc, suspended)

	_, _, err = s.ApplicationByClientID(t.Context(), "client-"+NewID())
	WantCode(t, err, skygate.CodeNotFound)
	_, _, err = s.ApplicationByClientID(t.Context(), app.ID)
	WantCode(t, err, skygate.CodeNotFound)
}

func testApplicationOtherAccount(t *testing.T, s skygate.Store) {
	owner := MustCreateAccount(t, s)
	intruder := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, owner.ID)

	tests := []struct {
		name string
		call func() error
	}{
		{"Application", func() error {
			_, err := s.Application(t.Context(), intruder.ID, app.ID)
			return err
		}},
		{"DeleteApplication", func() error {
			return s.DeleteApplication(t.Context(), intruder.ID, app.ID, Audit("DeleteApplication"))
		}},
		{"SetApplicationSecret", func() error {
			_, err := s.SetApplicationSecret(t.Context(), intruder.ID, app.ID, []byte("stolen"), At(2*time.Hour), At(time.Hour), Audit("SetApplicationSecret"))
			return err
		}},
		{"SetApplicationSecretRevokingTokens", func() error {
			_, err := s.SetApplicationSecretRevokingTokens(t.Context(), intruder.ID, app.ID, []byte("stolen"), At(time.Hour), Audit("SetApplicationSecretRevokingTokens"))
			return err
		}},
		{"unknown account", func() error {
			_, err := s.Application(t.Context(), NewID(), app.ID)
			return err
		}},
		{"unknown application", func() error {
			_, err := s.Application(t.Context(), owner.ID, NewID())
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			WantCode(t, tt.call(), skygate.CodeNotFound)
		})
	}

	wantEqual(t, "application after the intruder's calls", MustApplication(t, s, owner.ID, app.ID), app)
	got, total, err := s.ListApplications(t.Context(), intruder.ID, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListApplications")
	if len(got) != 0 || total != 0 {
		t.Fatalf("intruder lists %d applications, total %d", len(got), total)
	}
}

func testApplicationList(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	other := MustCreateAccount(t, s)
	apps := make([]*skygate.Application, 4)
	for i := len(apps) - 1; i >= 0; i-- {
		apps[i] = MustCreateApplication(t, s, acc.ID, WithApplicationCreated(At(time.Duration(i)*time.Second)))
		MustCreateApplication(t, s, other.ID, WithApplicationCreated(At(time.Duration(i)*time.Second)))
	}
	tests := []struct {
		name string
		page skygate.Page
		want []*skygate.Application
	}{
		{"first page", skygate.Page{Limit: 3}, apps[:3]},
		{"second page", skygate.Page{Limit: 3, Offset: 3}, apps[3:]},
		{"past the end", skygate.Page{Limit: 3, Offset: 4}, []*skygate.Application{}},
		{"no limit", skygate.Page{}, apps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := s.ListApplications(t.Context(), acc.ID, tt.page)
			MustNoError(t, err, "ListApplications")
			wantEqual(t, "total", total, len(apps))
			wantEqual(t, "page", got, tt.want)
		})
	}
}

func testApplicationDelete(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	kept := MustCreateApplication(t, s, acc.ID)

	MustNoError(t, s.DeleteApplication(t.Context(), acc.ID, app.ID, Audit("DeleteApplication")), "DeleteApplication")
	_, err := s.Application(t.Context(), acc.ID, app.ID)
	WantCode(t, err, skygate.CodeNotFound)
	_, _, err = s.ApplicationByClientID(t.Context(), app.ClientID)
	WantCode(t, err, skygate.CodeNotFound)
	WantCode(t, s.DeleteApplication(t.Context(), acc.ID, app.ID, Audit("DeleteApplication")), skygate.CodeNotFound)
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, kept.ID), kept)

	// The client id is free again.
	MustCreateApplication(t, s, acc.ID, WithClientID(app.ClientID))
}

func testApplicationSetSecret(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	other := MustCreateApplication(t, s, acc.ID)
	now := At(time.Hour + 999*time.Nanosecond)

	got, err := s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("new hash"), time.Time{}, now, Audit("SetApplicationSecret"))
	MustNoError(t, err, "SetApplicationSecret")
	want := *app
	want.SecretHash = []byte("new hash")
	want.UpdatedAt = Stored(now)
	wantEqual(t, "returned application", got, &want)
	wantEqual(t, "stored application", MustApplication(t, s, acc.ID, app.ID), &want)
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	_, err = s.SetApplicationSecret(t.Context(), acc.ID, NewID(), []byte("x"), now.Add(time.Hour), now, Audit("SetApplicationSecret"))
	WantCode(t, err, skygate.CodeNotFound)
}

// testApplicationSetCertificate: the binding replaces the earlier one, an empty
// thumbprint removes it, and another account's application (or an unknown one) is
// CodeNotFound and stays as it was.
func testApplicationSetCertificate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	intruder := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID, func(app *skygate.Application) {
		app.ClientCertSHA256 = "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"
	})
	other := MustCreateApplication(t, s, acc.ID)
	const thumbprint = "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"

	want := *app
	for i, tp := range []string{thumbprint, "", thumbprint} {
		now := At(time.Duration(i+1)*time.Hour + 999*time.Nanosecond)
		got, err := s.SetApplicationCertificate(t.Context(), acc.ID, app.ID, tp, now, Audit("SetApplicationCertificate"))
		MustNoError(t, err, "SetApplicationCertificate")
		want.ClientCertSHA256, want.UpdatedAt = tp, Stored(now)
		wantEqual(t, "returned application", got, &want)
		wantEqual(t, "stored application", MustApplication(t, s, acc.ID, app.ID), &want)
		gotByClient, _, err := s.ApplicationByClientID(t.Context(), app.ClientID)
		MustNoError(t, err, "ApplicationByClientID")
		wantEqual(t, "application by client id", gotByClient, &want)
	}
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	for _, tc := range []struct{ name, accountID, applicationID string }{
		{"another account's application", intruder.ID, app.ID},
		{"unknown account", NewID(), app.ID},
		{"unknown application", acc.ID, NewID()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.SetApplicationCertificate(t.Context(), tc.accountID, tc.applicationID, "stolen", At(48*time.Hour), Audit("SetApplicationCertificate"))
			WantCode(t, err, skygate.CodeNotFound)
		})
	}
	wantEqual(t, "application after the intruder's calls", MustApplication(t, s, acc.ID, app.ID), &want)
}
