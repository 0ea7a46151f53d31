package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Application updates (skygate.ApplicationUpdater): audiences replaced and removed,
// the JWK Set beside them in the same write with one audit record, what is not asked
// for left as it is, and another account's application out of reach.

var applicationUpdateTests = []test{
	{"Audiences", testUpdateApplicationAudiences},
	{"AudiencesAndJWKS", testUpdateApplicationAudiencesAndJWKS},
	{"OtherAccountIsNotFound", testUpdateApplicationOtherAccount},
}

func testUpdateApplicationAudiences(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID, func(a *skygate.Application) { a.Audiences = []string{"https://old.example.com"} })
	other := MustCreateApplication(t, s, acc.ID)
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, At(0), Audit("SetApplicationJWKS")), "SetApplicationJWKS")

	now := At(time.Hour + 999*time.Nanosecond)
	set := skygate.ApplicationUpdate{SetAudiences: true, Audiences: []string{"https://a.example.com", "urn:example:b"}}
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, set, now, Audit("UpdateApplication")), "UpdateApplication")
	got := MustApplication(t, s, acc.ID, app.ID)
	wantEqual(t, "audiences", got.Audiences, set.Audiences)
	wantEqual(t, "UpdatedAt", got.UpdatedAt, Stored(now))
	jwks, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	wantEqual(t, "jwks left as it was", string(jwks), testJWKS)
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	for _, none := range [][]string{{}, nil} {
		MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, set, now, Audit("UpdateApplication")), "set again")
		MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetAudiences: true, Audiences: none},
			now.Add(time.Minute), Audit("UpdateApplication")), "remove")
		wantEqual(t, "audiences after removal", MustApplication(t, s, acc.ID, app.ID).Audiences, []string{})
	}

	// Neither member set: the application is only touched.
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, set, now, Audit("UpdateApplication")), "set again")
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{Audiences: []string{"urn:ignored:x"}},
		now.Add(2*time.Minute), Audit("UpdateApplication")), "touch")
	got = MustApplication(t, s, acc.ID, app.ID)
	wantEqual(t, "audiences after an update that leaves them", got.Audiences, set.Audiences)
	wantEqual(t, "UpdatedAt after a touch", got.UpdatedAt, Stored(now.Add(2*time.Minute)))
}

func testUpdateApplicationAudiencesAndJWKS(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	_, before, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListAuditEvents")

	both := skygate.ApplicationUpdate{SetAudiences: true, Audiences: []string{"https://a.example.com"}, SetJWKS: true, JWKS: []byte(testJWKS)}
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, both, At(time.Hour), Audit("UpdateApplication")), "both")
	wantEqual(t, "audiences", MustApplication(t, s, acc.ID, app.ID).Audiences, both.Audiences)
	jwks, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	wantEqual(t, "jwks", string(jwks), testJWKS)
	_, after, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListAuditEvents")
	wantEqual(t, "audit records written", after-before, 1)

	// The JWK Set alone: removed, audiences left.
	MustNoError(t, s.UpdateApplication(t.Context(), acc.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true},
		At(2*time.Hour), Audit("UpdateApplication")), "remove jwks")
	jwks, err = s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS after removal")
	if jwks != nil {
		t.Fatalf("ApplicationJWKS after removal = %s, want nil", jwks)
	}
	wantEqual(t, "audiences after the jwks' removal", MustApplication(t, s, acc.ID, app.ID).Audiences, both.Audiences)

	err = s.UpdateApplication(t.Context(), acc.ID, app.ID, both, At(3*time.Hour), nil)
	if err == nil {
		t.Fatal("UpdateApplication without an audit record succeeded")
	}
}

func testUpdateApplicationOtherAccount(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	intruder := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID, func(a *skygate.Application) { a.Audiences = []string{"https://old.example.com"} })
	_, before, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListAuditEvents")

	both := skygate.ApplicationUpdate{SetAudiences: true, Audiences: []string{"https://evil.example.com"}, SetJWKS: true, JWKS: []byte(testJWKS)}
	err = s.UpdateApplication(t.Context(), intruder.ID, app.ID, both, At(time.Hour), Audit("UpdateApplication"))
	WantCode(t, err, skygate.CodeNotFound)
	err = s.UpdateApplication(t.Context(), intruder.ID, app.ID, skygate.ApplicationUpdate{SetJWKS: true, JWKS: []byte(testJWKS)}, At(time.Hour), Audit("UpdateApplication"))
	WantCode(t, err, skygate.CodeNotFound)
	err = s.UpdateApplication(t.Context(), acc.ID, NewID(), both, At(time.Hour), Audit("UpdateApplication"))
	WantCode(t, err, skygate.CodeNotFound)

	wantEqual(t, "application after the intruder's write", MustApplication(t, s, acc.ID, app.ID), app)
	jwks, err := s.ApplicationJWKS(t.Context(), acc.ID, app.ID)
	MustNoError(t, err, "ApplicationJWKS")
	if jwks != nil {
		t.Fatalf("ApplicationJWKS after the intruder's write = %s, want nil", jwks)
	}
	_, after, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{}, skygate.Page{Limit: 1})
	MustNoError(t, err, "ListAuditEvents")
	wantEqual(t, "audit records (the refused writes wrote none)", after, before)
}
