package identity_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// bundle is a service on a store of its own.
type bundle struct {
	svc     *identity.Service
	store   skygate.Store
	secrets *oauth.SecretHasher
}

// engines runs f on SQLite and, when SKYGATE_TEST_DATABASE_URL is set, on PostgreSQL.
func engines(t *testing.T, f func(t *testing.T, b *bundle)) {
	for name, open := range map[string]func(testing.TB) skygate.Store{
		"sqlite":   func(tb testing.TB) skygate.Store { return sqlitetest.MustOpen(tb) },
		"postgres": func(tb testing.TB) skygate.Store { return pgtest.MustOpen(tb) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, setup(t, open(t)))
		})
	}
}

func setup(t *testing.T, store skygate.Store) *bundle {
	t.Helper()
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	secrets := oauth.NewSecretHasher(box)
	return &bundle{svc: identity.New(identity.Config{Store: store, Secrets: secrets}), store: store, secrets: secrets}
}

var (
	employee = skygate.Actor{Subject: "employee-1", RequestID: "req-1"}
	cli      = skygate.Actor{Subject: skygate.ActorBootstrap}
	scopes   = []string{skygate.ScopeCatalogLoungesRead, skygate.ScopeBookingRead}
)

// records lists the account's audit records as "actor action target", oldest first.
func (b *bundle) records(t *testing.T, accountID string) []string {
	t.Helper()
	events, _, err := b.store.ListAuditEvents(t.Context(), skygate.AuditFilter{AccountID: accountID}, skygate.Page{})
	storetest.MustNoError(t, err, "ListAuditEvents")
	var out []string
	for _, e := range slices.Backward(events) {
		out = append(out, e.Actor+" "+e.Action+" "+e.TargetID)
	}
	return out
}

func wantRecords(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("audit records\n%q\nwant\n%q", got, want)
	}
}

// TestBootstrapConcurrently: bootstraps of one name that run at once make one account
// and one application between them, each audited once.
func TestBootstrapConcurrently(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		const n = 6
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			results []*identity.Bootstrapped
			start   = make(chan struct{})
		)
		for range n {
			wg.Go(func() {
				<-start
				res, err := b.svc.Bootstrap(t.Context(), cli, identity.Bootstrap{Account: "acme", Scopes: scopes})
				if err != nil {
					t.Errorf("Bootstrap: %v", err)
					return
				}
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if len(results) != n {
			t.FailNow()
		}
		first, shown := results[0], 0
		for _, res := range results {
			if res.Account.ID != first.Account.ID || res.Application.ID != first.Application.ID {
				t.Errorf("bootstraps disagree: %+v and %+v", res, first)
			}
			if res.ClientSecret != "" {
				shown++
				if !b.secrets.Verify(res.ClientSecret, res.Application.SecretHash) {
					t.Error("the secret shown is not the application's")
				}
			}
		}
		if shown != 1 {
			t.Errorf("%d bootstraps showed a secret, want one", shown)
		}
		_, total, err := b.store.ListApplications(t.Context(), first.Account.ID, skygate.Page{})
		storetest.MustNoError(t, err, "ListApplications")
		if total != 1 {
			t.Errorf("%d applications, want one", total)
		}
		wantRecords(t, b.records(t, first.Account.ID),
			"bootstrap account.create "+first.Account.ID, "bootstrap application.create "+first.Application.ID)
	})
}

// TestBootstrap: a second bootstrap changes nothing and shows no secret; rotations and
// a given secret replace it, audited as the admin API's rotations are.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		ctx := t.Context()
		created, err := b.svc.Bootstrap(ctx, cli, identity.Bootstrap{Account: "  acme  ", Scopes: scopes, Sandbox: true})
		storetest.MustNoError(t, err, "Bootstrap")
		app := created.Application
		if created.Account.Name != "acme" || app.Name != "acme default" || !app.Sandbox || created.ClientSecret == "" ||
			!slices.Equal(app.AllowedScopes, scopes) || !b.secrets.Verify(created.ClientSecret, app.SecretHash) {
			t.Fatalf("created %+v %+v", created.Account, app)
		}
		accID := created.Account.ID

		again, err := b.svc.Bootstrap(ctx, cli, identity.Bootstrap{Account: "acme", Scopes: []string{skygate.ScopeESIMRead}})
		storetest.MustNoError(t, err, "Bootstrap again")
		if again.Account.ID != accID || again.Application.ID != app.ID || again.ClientSecret != "" || again.Application.Sandbox != true {
			t.Fatalf("again %+v %+v", again, again.Application)
		}
		wantRecords(t, b.records(t, accID), "bootstrap account.create "+accID, "bootstrap application.create "+app.ID)

		rotated, err := b.svc.Bootstrap(ctx, cli, identity.Bootstrap{Account: "acme", Scopes: scopes, Rotation: identity.NewSecret})
		storetest.MustNoError(t, err, "Bootstrap NewSecret")
		if rotated.ClientSecret == "" || rotated.ClientSecret == created.ClientSecret || rotated.Application.TokenGeneration != 0 ||
			!b.secrets.Verify(rotated.ClientSecret, rotated.Application.SecretHash) {
			t.Fatalf("rotated %+v %+v", rotated, rotated.Application)
		}
		revoked, err := b.svc.Bootstrap(ctx, cli, identity.Bootstrap{Account: "acme", Scopes: scopes, Rotation: identity.NewSecretRevokingTokens})
		storetest.MustNoError(t, err, "Bootstrap NewSecretRevokingTokens")
		if revoked.ClientSecret == "" || revoked.Application.TokenGeneration != 1 {
			t.Fatalf("revoked %+v %+v", revoked, revoked.Application)
		}

		// A given secret is set when it differs, and then only.
		given := func() *identity.Bootstrapped {
			t.Helper()
			res, err := b.svc.Bootstrap(ctx, skygate.Actor{Subject: skygate.ActorSystem}, identity.Bootstrap{Account: "acme", Scopes: scopes, Secret: "sks_given"})
			storetest.MustNoError(t, err, "Bootstrap with a secret")
			if res.ClientSecret != "sks_given" || !b.secrets.Verify("sks_given", res.Application.SecretHash) {
				t.Fatalf("given secret: %+v %+v", res, res.Application)
			}
			return res
		}
		given()
		given()
		wantRecords(t, b.records(t, accID),
			"bootstrap account.create "+accID, "bootstrap application.create "+app.ID,
			"bootstrap application.rotate_secret "+app.ID, "bootstrap application.rotate_secret "+app.ID,
			"system application.rotate_secret "+app.ID)
	})
}

// TestValidation: the admin API's commands and Bootstrap refuse the same input, each
// naming its own fields, and write nothing.
func TestValidation(t *testing.T) {
	t.Parallel()
	b := setup(t, sqlitetest.MustOpen(t))
	ctx := t.Context()
	acc, err := b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "acme"})
	storetest.MustNoError(t, err, "CreateAccount")
	const thumb = "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"
	for _, tc := range []struct {
		name, account string
		scopes        []string
		thumbprint    string
		// fields are the fields refused, as the admin API names them.
		fields []string
	}{
		{"empty name", "", scopes, "", []string{"name"}},
		{"blank name", " \t ", scopes, "", []string{"name"}},
		{"long name", strings.Repeat("n", 129), scopes, "", []string{"name"}},
		{"control character", "a\x7fb", scopes, "", []string{"name"}},
		{"no scopes", "x", nil, "", []string{"allowed_scopes"}},
		{"admin scope", "x", []string{skygate.ScopeBookingRead, skygate.ScopeAdminAccounts}, "", []string{"allowed_scopes[1]"}},
		{"bad thumbprint", "x", scopes, "nope", []string{"client_cert_sha256"}},
		{"short thumbprint", "x", scopes, thumb[:20], []string{"client_cert_sha256"}},
		{"everything", "", []string{"root"}, "x", []string{"name", "allowed_scopes[0]", "client_cert_sha256"}},
		{"valid", strings.Repeat("ü", 128), scopes, thumb, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: tc.account, AllowedScopes: tc.scopes, ClientCertSHA256: tc.thumbprint})
			wantFields(t, "CreateApplication", err, tc.fields)

			_, err = b.svc.Bootstrap(ctx, cli, identity.Bootstrap{Account: tc.account, Scopes: tc.scopes, ClientCertSHA256: tc.thumbprint})
			renamed := make([]string, len(tc.fields))
			for i, f := range tc.fields {
				renamed[i] = strings.NewReplacer("name", "account", "allowed_scopes", "scopes").Replace(f)
			}
			wantFields(t, "Bootstrap", err, renamed)

			name, fields := skygate.NewID(), []string(nil)
			if slices.Contains(tc.fields, "name") {
				name, fields = tc.account, []string{"name"}
			}
			_, err = b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: name})
			wantFields(t, "CreateAccount", err, fields)
		})
	}
	// Of the bootstraps, the valid one alone wrote.
	events, _, err := b.store.ListAuditEvents(ctx, skygate.AuditFilter{Actor: skygate.ActorBootstrap}, skygate.Page{})
	storetest.MustNoError(t, err, "ListAuditEvents")
	if len(events) != 2 {
		t.Errorf("bootstrap records %+v, want those of the valid one", events)
	}
}

// wantFields checks that err is a validation error of exactly the fields, or nil for
// none.
func wantFields(t *testing.T, what string, err error, fields []string) {
	t.Helper()
	if len(fields) == 0 {
		storetest.MustNoError(t, err, what)
		return
	}
	e, ok := err.(*skygate.Error)
	if !ok || e.Code != skygate.CodeValidation {
		t.Fatalf("%s: %v, want a validation error of %q", what, err, fields)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Field)
	}
	if !slices.Equal(got, fields) {
		t.Errorf("%s: fields %q, want %q", what, got, fields)
	}
}

// TestWritesAreAudited: every write records the actor, its request, the action and
// the target with the write; a write that fails records nothing.
func TestWritesAreAudited(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		ctx := t.Context()
		acc, err := b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: " Silk Road "})
		storetest.MustNoError(t, err, "CreateAccount")
		if acc.Name != "Silk Road" || acc.Status != skygate.AccountActive {
			t.Errorf("account %+v", acc)
		}
		_, err = b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "Silk Road"})
		storetest.WantCode(t, err, skygate.CodeConflict)
		_, err = b.svc.SetAccountStatus(ctx, employee, identity.StatusChange{AccountID: acc.ID, Status: "gone"})
		storetest.WantCode(t, err, skygate.CodeValidation)
		_, err = b.svc.SetAccountStatus(ctx, employee, identity.StatusChange{AccountID: skygate.NewID(), Status: skygate.AccountSuspended})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		suspended, err := b.svc.SetAccountStatus(ctx, employee, identity.StatusChange{AccountID: acc.ID, Status: skygate.AccountSuspended})
		storetest.MustNoError(t, err, "SetAccountStatus")
		if suspended.Status != skygate.AccountSuspended {
			t.Errorf("status %s", suspended.Status)
		}

		_, err = b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: skygate.NewID(), Name: "x", AllowedScopes: scopes})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		app, err := b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "Engine",
			AllowedScopes: []string{skygate.ScopeBookingRead, skygate.ScopeBookingRead, skygate.ScopeESIMRead}})
		storetest.MustNoError(t, err, "CreateApplication")
		if !slices.Equal(app.AllowedScopes, []string{skygate.ScopeBookingRead, skygate.ScopeESIMRead}) || !b.secrets.Verify(app.ClientSecret, app.SecretHash) {
			t.Errorf("application %+v", app)
		}
		_, err = b.svc.RotateSecret(ctx, employee, identity.SecretRotation{ApplicationID: skygate.NewID()})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		rotated, err := b.svc.RotateSecret(ctx, employee, identity.SecretRotation{ApplicationID: app.ID, RevokeTokens: true})
		storetest.MustNoError(t, err, "RotateSecret")
		if rotated.ClientSecret == app.ClientSecret || rotated.TokenGeneration != 1 || !b.secrets.Verify(rotated.ClientSecret, rotated.SecretHash) {
			t.Errorf("rotated %+v", rotated)
		}
		_, err = b.svc.AddCertificate(ctx, employee, identity.CertificateRequest{ApplicationID: app.ID, CSR: "-----BEGIN CERTIFICATE REQUEST-----"})
		storetest.WantCode(t, err, skygate.CodeValidation) // no client CA
		page, total, err := b.svc.Applications(ctx, acc.ID, skygate.Page{})
		storetest.MustNoError(t, err, "Applications")
		if total != 1 || page[0].ID != app.ID {
			t.Errorf("applications %d %+v", total, page)
		}
		_, _, err = b.svc.Applications(ctx, skygate.NewID(), skygate.Page{})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.DeleteApplication(ctx, employee, skygate.NewID())
		storetest.WantCode(t, err, skygate.CodeNotFound)
		deleted, err := b.svc.DeleteApplication(ctx, employee, app.ID)
		storetest.MustNoError(t, err, "DeleteApplication")
		if deleted.ClientID != app.ClientID {
			t.Errorf("deleted %+v", deleted)
		}
		_, err = b.svc.Application(ctx, app.ID)
		storetest.WantCode(t, err, skygate.CodeNotFound)

		events, _, err := b.store.ListAuditEvents(ctx, skygate.AuditFilter{}, skygate.Page{})
		storetest.MustNoError(t, err, "ListAuditEvents")
		var got []string
		for _, e := range slices.Backward(events) {
			if e.Actor != employee.Subject || e.RequestID != employee.RequestID || e.AccountID != acc.ID || e.At.After(time.Now()) {
				t.Errorf("record %+v", e)
			}
			got = append(got, fmt.Sprintf("%s %s %s %s", e.Action, e.TargetType, e.TargetID, e.Details))
		}
		wantRecords(t, got,
			`account.create account `+acc.ID+` {"name":"Silk Road"}`,
			`account.update account `+acc.ID+` {"status":"suspended"}`,
			`application.create application `+app.ID+` {"name":"Engine","allowed_scopes":["booking.fasttrack:read","esim:read"],"sandbox":false,"client_cert_sha256":""}`,
			`application.rotate_secret application `+app.ID+` {"revoke_tokens":true,"grace_seconds":0}`,
			`application.delete application `+app.ID+` {}`)
	})
}

// TestBootstrapLongName: the application Bootstrap creates is named after its account
// within the length of a name.
func TestBootstrapLongName(t *testing.T) {
	t.Parallel()
	b := setup(t, sqlitetest.MustOpen(t))
	name := strings.Repeat("ж", identity.MaxNameLen)
	res, err := b.svc.Bootstrap(t.Context(), cli, identity.Bootstrap{Account: name, Scopes: scopes})
	storetest.MustNoError(t, err, "Bootstrap")
	if got := []rune(res.Application.Name); len(got) != identity.MaxNameLen || !strings.HasSuffix(res.Application.Name, " default") {
		t.Errorf("application name %q (%d characters)", res.Application.Name, len(got))
	}
}
