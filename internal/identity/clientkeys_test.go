package identity_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/storetest"
)

const edJWKS = `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`

// TestApplicationJWKS: a JWK Set given on create is stored in the same write, with
// its alg filled in; PATCH replaces, removes and leaves it, audited only when it
// changes something; invalid sets name the field and change nothing.
func TestApplicationJWKS(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		ctx := t.Context()
		acc, err := b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "Keys Travel"})
		storetest.MustNoError(t, err, "CreateAccount")

		_, err = b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "bad", AllowedScopes: scopes,
			JWKS: []byte(`{"keys":[{"kty":"oct","kid":"s","k":"c2VjcmV0"}]}`)})
		wantField(t, err, "jwks")

		app, err := b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "keys", AllowedScopes: scopes, JWKS: []byte(edJWKS)})
		storetest.MustNoError(t, err, "CreateApplication with jwks")
		stored, err := b.store.ApplicationJWKS(ctx, acc.ID, app.ID)
		storetest.MustNoError(t, err, "ApplicationJWKS")
		if string(app.JWKS) != string(stored) || !strings.Contains(string(stored), `"alg":"EdDSA"`) {
			t.Errorf("stored %s, answered %s: want the same, with the inferred alg", stored, app.JWKS)
		}

		// Left out: nothing changes, nothing is audited.
		got, err := b.svc.PatchApplication(ctx, employee, identity.ApplicationPatch{ApplicationID: app.ID})
		storetest.MustNoError(t, err, "empty patch")
		if string(got.JWKS) != string(stored) {
			t.Errorf("empty patch answered %s, want %s", got.JWKS, stored)
		}
		_, err = b.svc.PatchApplication(ctx, employee, identity.ApplicationPatch{ApplicationID: app.ID, JWKS: []byte(`{"keys":[{"kty":"EC","kid":"x"}]}`)})
		wantField(t, err, "jwks")
		got, err = b.svc.PatchApplication(ctx, employee, identity.ApplicationPatch{ApplicationID: app.ID, JWKS: []byte("null")})
		storetest.MustNoError(t, err, "remove")
		if got.JWKS != nil {
			t.Errorf("after removal the answer has jwks %s", got.JWKS)
		}
		_, err = b.svc.PatchApplication(ctx, employee, identity.ApplicationPatch{ApplicationID: skygate.NewID(), JWKS: []byte("null")})
		storetest.WantCode(t, err, skygate.CodeNotFound)

		wantRecords(t, b.records(t, acc.ID),
			"employee-1 account.create "+acc.ID,
			"employee-1 application.create "+app.ID,
			"employee-1 application.update "+app.ID)
	})
}

// wantField fails unless err is a validation error naming field.
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	e, ok := err.(*skygate.Error)
	if !ok || e.Code != skygate.CodeValidation || len(e.Fields) == 0 || e.Fields[0].Field != field {
		t.Fatalf("error %v, want a validation error of %s", err, field)
	}
}
