package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The JWK Sets of private_key_jwt (skygate.ClientKeyStore): set, replaced, removed,
// audited with the write, out of reach of another account and removed with the
// application; client assertion ids are single-use until purged, also when two callers
// use one at once.

var clientKeyTests = []test{
	{"SetAndGet", testClientKeysSetAndGet},
	{"OtherAccountIsNotFound", testClientKeysOtherAccount},
	{"DeletedWithApplication", testClientKeysDeletedWithApplication},
	{"CreateWithJWKS", testClientKeysCreateWithJWKS},
	{"AssertionOnce", testClientAssertionOnce},
	{"AssertionConcurrently", testClientAssertionConcurrently},
	{"AssertionPurge", testClientAssertionPurge},
}

const testJWKS = `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`

func testClientKeysSetAndGet(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	other := MustCreateApplication(t, s, acc.ID)

	got, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS before any")
	if got != nil {
		t.Fatalf("ApplicationJWKS before any = %s, want nil", got)
	}

	now := At(time.Hour + 999*time.Nanosecond)
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, now, Audit("SetApplicationJWKS")), "SetApplicationJWKS")
	got, err = s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	wantEqual(t, "jwks", string(got), testJWKS)
	wantEqual(t, "UpdatedAt", MustApplication(t, s, acc.ID, app.ID).UpdatedAt, Stored(now))
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	replaced := `{"keys":[]}`
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(replaced)}, now.Add(time.Minute), Audit("SetApplicationJWKS")), "replace")
	got, err = s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS after replace")
	wantEqual(t, "replaced jwks", string(got), replaced)

	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: nil}, now.Add(2*time.Minute), Audit("RemoveApplicationJWKS")), "remove")
	got, err = s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS after remove")
	if got != nil {
		t.Fatalf("ApplicationJWKS after remove = %s, want nil", got)
	}

	events, _, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAuditEvents")
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	wantEqual(t, "audit actions, newest first", actions, []string{"RemoveApplicationJWKS", "SetApplicationJWKS", "SetApplicationJWKS",
		"CreateApplication", "CreateApplication", "CreateAccount"})
}

func testClientKeysOtherAccount(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	intruder := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, At(0), Audit("SetApplicationJWKS")), "SetApplicationJWKS")
	_, before, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListAuditEvents")

	_, err = s.ApplicationJWKS(t.Context(), intruder.ID, app.ID)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.ApplicationJWKS(t.Context(), acc.ID, NewID())
	WantCode(t, err, skygate.CodeNotFound)
	err = s.UpdateApplication(t.Context(), intruder.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: nil}, At(time.Hour), Audit("SetApplicationJWKS"))
	WantCode(t, err, skygate.CodeNotFound)
	err = s.UpdateApplication(t.Context(), acc.ID, NewID(), skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, At(time.Hour), Audit("SetApplicationJWKS"))
	WantCode(t, err, skygate.CodeNotFound)

	got, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	wantEqual(t, "jwks after the intruder's write", string(got), testJWKS)
	wantEqual(t, "application after the intruder's write", MustApplication(t, s, acc.ID, app.ID), app)
	_, total, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListAuditEvents")
	wantEqual(t, "audit records (the refused writes wrote none)", total, before)
}

func testClientKeysDeletedWithApplication(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, At(0), Audit("SetApplicationJWKS")), "SetApplicationJWKS")
	MustNoError(t, s.DeleteApplication(t.Context(), acc.ID, app.ID, Audit("DeleteApplication")), "DeleteApplication")
	_, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	WantCode(t, err, skygate.CodeNotFound)
}

func testClientAssertionOnce(t *testing.T, s skygate.Store) {
	exp := At(5 * time.Minute)
	MustNoError(t, s.UseClientAssertion(t.Context(), "client-a", "jti-1", exp), "first use")
	WantCode(t, s.UseClientAssertion(t.Context(), "client-a", "jti-1", exp), skygate.CodeConflict)
	// The jti is the client's own: another client may use the same value.
	MustNoError(t, s.UseClientAssertion(t.Context(), "client-b", "jti-1", exp), "other client")
	MustNoError(t, s.UseClientAssertion(t.Context(), "client-a", "jti-2", exp), "other jti")
}

func testClientAssertionConcurrently(t *testing.T, s skygate.Store) {
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = s.UseClientAssertion(t.Context(), "client", "same-jti", At(time.Minute)) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			WantCode(t, err, skygate.CodeConflict)
		}
	}
	wantEqual(t, "uses accepted", ok, 1)
}

func testClientAssertionPurge(t *testing.T, s skygate.Store) {
	MustNoError(t, s.UseClientAssertion(t.Context(), "c", "early", At(time.Minute)), "early")
	MustNoError(t, s.UseClientAssertion(t.Context(), "c", "late", At(time.Hour)), "late")

	n, err := s.PurgeClientAssertions(t.Context(), At(time.Minute))
	MustNoError(t, err, "purge at the first expiry")
	wantEqual(t, "purged at the expiry itself", n, int64(0))
	n, err = s.PurgeClientAssertions(t.Context(), At(2*time.Minute))
	MustNoError(t, err, "purge")
	wantEqual(t, "purged", n, int64(1))

	// A purged jti may be recorded again; one not purged is still refused.
	MustNoError(t, s.UseClientAssertion(t.Context(), "c", "early", At(3*time.Minute)), "reuse after purge")
	WantCode(t, s.UseClientAssertion(t.Context(), "c", "late", At(time.Hour)), skygate.CodeConflict)
}

func testClientKeysCreateWithJWKS(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := &skygate.Application{ID: NewID(), AccountID: acc.ID, Name: "keys", ClientID: "sk_" + NewID(), SecretHash: []byte("hash"),
		AllowedScopes: []string{skygate.ScopeESIMRead}, CreatedAt: At(time.Second), UpdatedAt: At(time.Second)}
	MustNoError(t, s.CreateApplicationWithJWKS(t.Context(), app, []byte(testJWKS), Audit("CreateApplication")), "CreateApplicationWithJWKS")
	wantEqual(t, "application", MustApplication(t, s, acc.ID, app.ID), app)
	got, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	wantEqual(t, "jwks", string(got), testJWKS)

	// A taken client_id is a conflict and writes neither the application nor its set.
	dup := *app
	dup.ID = NewID()
	WantCode(t, s.CreateApplicationWithJWKS(t.Context(), &dup, []byte(testJWKS), Audit("CreateApplication")), skygate.CodeConflict)
	_, err = s.ApplicationJWKS(t.Context(), acc.ID, dup.ID)
	WantCode(t, err, skygate.CodeNotFound)
	unknown := *app
	unknown.ID, unknown.ClientID, unknown.AccountID = NewID(), "sk_"+NewID(), NewID()
	WantCode(t, s.CreateApplicationWithJWKS(t.Context(), &unknown, []byte(testJWKS), Audit("CreateApplication")), skygate.CodeNotFound)
}
