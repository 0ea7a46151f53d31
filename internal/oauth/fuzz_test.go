package oauth_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/oauth"
)

// FuzzVerify feeds arbitrary strings to the verifier: it never panics, rejects with
// exactly one of its two errors, and accepts only tokens this issuer signed.
func FuzzVerify(f *testing.F) {
	fx := setup(f)
	good, _, err := fx.issuer.Issue(oauth.Claims{Subject: "c", ClientID: "c", AccountID: "a", Scopes: []string{"catalog.lounges:read"}})
	if err != nil {
		f.Fatal(err)
	}
	parts := strings.Split(good, ".")
	for _, seed := range []string{
		good, "", ".", "..", "a.b.c", parts[0] + "." + parts[1] + ".",
		"eyJhbGciOiJub25lIn0." + parts[1] + ".",
		parts[0] + "." + parts[1] + "." + strings.Repeat("A", 86),
		parts[0] + ".e30." + parts[2],
		strings.Repeat("a", 5000),
		"eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLy4uL2V0Yy9wYXNzd2QiLCJ0eXAiOiJhdCtqd3QifQ." + parts[1] + "." + parts[2],
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		claims, err := fx.verifier.Verify(context.Background(), token)
		if err != nil {
			if claims != nil {
				t.Fatal("claims with an error")
			}
			if errors.Is(err, oauth.ErrInvalidToken) == errors.Is(err, oauth.ErrWrongAudience) {
				t.Fatalf("error %v is not exactly one of ErrInvalidToken, ErrWrongAudience", err)
			}
			return
		}
		if token != good {
			t.Fatalf("accepted a token the issuer did not sign: %q", token)
		}
	})
}
