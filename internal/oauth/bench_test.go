package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

func BenchmarkIssue(b *testing.B) {
	f := setup(b)
	claims := oauth.Claims{Subject: "client-1", ClientID: "client-1", AccountID: "acct-1", Scopes: skygate.B2BScopes}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := f.issuer.Issue(claims); err != nil {
				b.Error(err)
			}
		}
	})
}

func BenchmarkVerifyCached(b *testing.B) {
	f := setup(b)
	toks := make([]string, 1024)
	for i := range toks {
		toks[i] = f.MustIssue(b)
		MustVerify(b, f.verifier, toks[i])
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := f.verifier.Verify(ctx, toks[i%len(toks)]); err != nil {
				b.Error(err)
			}
			i++
		}
	})
}

func BenchmarkVerifyUncached(b *testing.B) {
	f := setup(b)
	v := MustVerifier(b, f.keys, oauth.VerifierConfig{Issuer: testIssuer, Clock: f.clock.Now, CacheSize: -1})
	tok := f.MustIssue(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Verify(ctx, tok); err != nil {
				b.Error(err)
			}
		}
	})
}

func BenchmarkTokenEndpoint(b *testing.B) {
	f := setup(b)
	id, secret := f.MustApplication(b, appOptions{})
	body := url.Values{"grant_type": {"client_credentials"}, "scope": {"catalog.lounges:read"}}.Encode()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := httptest.NewRequest(http.MethodPost, oauth.TokenPath, strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.SetBasicAuth(id, secret)
			w := httptest.NewRecorder()
			f.handler.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Errorf("status %d: %s", w.Code, w.Body)
			}
		}
	})
}
