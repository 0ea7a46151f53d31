package identity_test

import (
	"slices"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/storetest"
)

// TestPatchApplicationAudiences: PATCH's audiences replace the stored ones (repeats
// dropped), null and [] remove them, left out they stay; with jwks they are one
// write and one application.update record; invalid ones name the field and change
// nothing.
func TestPatchApplicationAudiences(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		ctx := t.Context()
		acc, err := b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "Aud Travel"})
		storetest.MustNoError(t, err, "CreateAccount")
		app, err := b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "aud", AllowedScopes: scopes,
			Audiences: []string{"https://old.example.com"}})
		storetest.MustNoError(t, err, "CreateApplication")

		wantAudiences := func(what string, want ...string) {
			t.Helper()
			stored, err := b.store.Application(ctx, acc.ID, app.ID)
			storetest.MustNoError(t, err, "Application")
			if !slices.Equal(stored.Audiences, want) {
				t.Errorf("%s: stored audiences %q, want %q", what, stored.Audiences, want)
			}
		}
		patch := func(aud, jwks string) (*identity.WithJWKS, error) {
			p := identity.ApplicationPatch{ApplicationID: app.ID}
			if aud != "" {
				p.Audiences = []byte(aud)
			}
			if jwks != "" {
				p.JWKS = []byte(jwks)
			}
			return b.svc.PatchApplication(ctx, employee, p)
		}

		got, err := patch(`["https://a.example.com","urn:example:b","https://a.example.com"]`, "")
		storetest.MustNoError(t, err, "replace")
		if want := []string{"https://a.example.com", "urn:example:b"}; !slices.Equal(got.Audiences, want) {
			t.Errorf("answer's audiences %q, want %q", got.Audiences, want)
		}
		wantAudiences("replaced", "https://a.example.com", "urn:example:b")

		for _, bad := range []struct{ body, field string }{
			{`"https://a.example.com"`, "audiences"},
			{`[1]`, "audiences"},
			{`{"a":1}`, "audiences"},
			{`["relative/path"]`, "audiences[0]"},
			{`["https://ok.example.com","https://x.example.com#frag"]`, "audiences[1]"},
			{`["https://1.example","https://2.example","https://3.example","https://4.example","https://5.example",
				"https://6.example","https://7.example","https://8.example","https://9.example","https://10.example","https://11.example"]`, "audiences"},
		} {
			_, err := patch(bad.body, "")
			wantField(t, err, bad.field)
		}
		// An invalid jwks beside valid audiences changes neither.
		_, err = patch(`["https://c.example.com"]`, `{"keys":[{"kty":"EC","kid":"x"}]}`)
		wantField(t, err, "jwks")
		wantAudiences("after invalid patches", "https://a.example.com", "urn:example:b")

		got, err = patch("", "")
		storetest.MustNoError(t, err, "empty patch")
		if !slices.Equal(got.Audiences, []string{"https://a.example.com", "urn:example:b"}) {
			t.Errorf("answer to an empty patch %v, want the audiences unchanged", got.Audiences)
		}
		wantAudiences("left out", "https://a.example.com", "urn:example:b")

		got, err = patch(`["https://c.example.com"]`, edJWKS)
		storetest.MustNoError(t, err, "audiences and jwks")
		if got.JWKS == nil || !slices.Equal(got.Audiences, []string{"https://c.example.com"}) {
			t.Errorf("answer %+v with jwks %s, want both changed", got.Application, got.JWKS)
		}
		wantAudiences("with jwks", "https://c.example.com")

		for _, none := range []string{"null", "[]"} {
			_, err = patch(`["https://d.example.com"]`, "")
			storetest.MustNoError(t, err, "set")
			got, err = patch(none, "")
			storetest.MustNoError(t, err, none)
			if len(got.Audiences) != 0 {
				t.Errorf("after %s the answer has audiences %q", none, got.Audiences)
			}
			wantAudiences("after " + none)
		}
		_, err = b.svc.PatchApplication(ctx, employee, identity.ApplicationPatch{ApplicationID: skygate.NewID(), Audiences: []byte("[]")})
		storetest.WantCode(t, err, skygate.CodeNotFound)

		update := "employee-1 application.update " + app.ID
		wantRecords(t, b.records(t, acc.ID),
			"employee-1 account.create "+acc.ID, "employee-1 application.create "+app.ID,
			update, update, update, update, update, update)
	})
}
