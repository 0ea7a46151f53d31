package httpapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
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

// gate is a Server wired as cmd/skygate wires it, as far as tokens go: the token
// endpoint and the routes share one application cache, on a real store.
type gate struct {
	t      *testing.T
	store  skygate.Store
	s      *Server
	issuer *oauth.Issuer
	hasher *oauth.SecretHasher
	admin  string // an employee token with the applications scope
	// ahead is how far the application cache's clock runs ahead of time.Now, so that
	// a test lets its entries expire without waiting (see later).
	ahead atomic.Int64
}

// later moves the application cache's clock on by d.
func (g *gate) later(d time.Duration) { g.ahead.Add(int64(d)) }

func newGate(t *testing.T, store skygate.Store) *gate {
	t.Helper()
	box, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	keys := oauth.NewKeyManager(store, box, nil, oauth.KeyManagerOptions{})
	if err := keys.EnsureKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	const iss = "https://api.skygate.test"
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: iss})
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := oauth.NewVerifier(keys, oauth.VerifierConfig{Issuer: iss})
	if err != nil {
		t.Fatal(err)
	}
	hasher := oauth.NewSecretHasher(box)
	g := &gate{t: t, store: store, issuer: issuer, hasher: hasher}
	apps := oauth.NewApplicationCache(store, ApplicationCacheTTL, func() time.Time {
		return time.Now().Add(time.Duration(g.ahead.Load()))
	})
	none := http.NotFoundHandler()
	s := NewServer(Deps{
		Directory: store, Audit: store, Identity: identity.New(identity.Config{Store: store, Secrets: hasher}),
		Tokens: verifier, Applications: apps, JWKS: none, Discovery: none,
		TokenEndpoint: oauth.NewTokenHandler(nil, oauth.NewClientCredentialsGrant(oauth.NewClientAuthenticator(apps, hasher), issuer)),
	})
	s.mux.Handle("GET /test/b2b", s.handle(s.authenticate(skygate.ScopeCatalogLoungesRead, func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, http.StatusOK, map[string]string{"client_id": principalOf(r.Context()).ClientID})
	})))
	admin, _, err := issuer.Issue(oauth.Claims{Subject: "employee-1", ClientID: "console", Roles: []string{"admin"},
		Scopes: []string{skygate.ScopeAdminApplications}})
	if err != nil {
		t.Fatal(err)
	}
	g.s, g.admin = s, admin
	return g
}

// application creates an account and an application allowed the catalog scope and
// returns the application and its secret.
func (g *gate) application(opts ...func(*skygate.Application)) (*skygate.Application, string) {
	g.t.Helper()
	acc := storetest.MustCreateAccount(g.t, g.store)
	secret, err := oauth.NewClientSecret()
	if err != nil {
		g.t.Fatal(err)
	}
	app := storetest.MustCreateApplication(g.t, g.store, acc.ID, append([]func(*skygate.Application){func(a *skygate.Application) {
		a.SecretHash = g.hasher.Hash(secret)
		a.AllowedScopes = []string{skygate.ScopeCatalogLoungesRead}
	}}, opts...)...)
	return app, secret
}

func (g *gate) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	g.s.ServeHTTP(w, r)
	return w
}

// token asks the token endpoint for a token of clientID.
func (g *gate) token(clientID, secret string) string {
	g.t.Helper()
	r := httptest.NewRequest(http.MethodPost, oauth.TokenPath, strings.NewReader("grant_type=client_credentials"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	w := g.serve(r)
	var resp struct {
		AccessToken string `json:"access_token"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &resp) != nil {
		g.t.Fatalf("token: %d %s", w.Code, w.Body)
	}
	return resp.AccessToken
}

// call sends GET /test/b2b with tok over a connection with the client certificate
// cert (verified by the listener), or over plain HTTP when cert is nil.
func (g *gate) call(tok string, cert *x509.Certificate) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/test/b2b", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	if cert != nil {
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}}
	}
	return g.serve(r)
}

// adminCall sends an admin request with a body of the media type, if any.
func (g *gate) adminCall(method, path, contentType, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, adminPath+path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+g.admin)
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return g.serve(r)
}

// wantRefused checks a 401 with an invalid_token challenge, the problem code and a
// description containing desc.
func wantRefused(t *testing.T, what string, w *httptest.ResponseRecorder, code, desc string) {
	t.Helper()
	var p problem
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	challenge := w.Header().Get("WWW-Authenticate")
	if w.Code != http.StatusUnauthorized || p.Code != code || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, desc) {
		t.Errorf("%s: %d %s, WWW-Authenticate %q; want 401 %s with invalid_token and %q", what, w.Code, w.Body, challenge, code, desc)
	}
}

// gateEngines runs f on SQLite and, when SKYGATE_TEST_DATABASE_URL is set, on
// PostgreSQL.
func gateEngines(t *testing.T, f func(t *testing.T, g *gate)) {
	for name, open := range map[string]func(testing.TB) skygate.Store{
		"sqlite":   func(tb testing.TB) skygate.Store { return sqlitetest.MustOpen(tb) },
		"postgres": func(tb testing.TB) skygate.Store { return pgtest.MustOpen(tb) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, newGate(t, open(t)))
		})
	}
}

// TestRotateSecretRevokingTokens: rotate-secret keeps the tokens issued so far
// without a body, with {} and with revoke_tokens false; with revoke_tokens true they
// stop working at once and a token of the new secret works at once. A bad body is
// refused and changes nothing.
func TestRotateSecretRevokingTokens(t *testing.T) {
	t.Parallel()
	gateEngines(t, func(t *testing.T, g *gate) {
		app, secret := g.application()
		old := g.token(app.ClientID, secret)
		rotate := "/applications/" + app.ID + "/rotate-secret"
		newSecret := func(w *httptest.ResponseRecorder) string {
			t.Helper()
			var resp identity.WithSecret
			if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &resp) != nil || resp.ClientSecret == "" {
				t.Fatalf("rotate: %d %s", w.Code, w.Body)
			}
			if resp.TokenGeneration != 0 || strings.Contains(w.Body.String(), "tokens_revoked_at") {
				t.Errorf("a rotation without revocation shows a revocation: %s", w.Body)
			}
			return resp.ClientSecret
		}
		for _, tc := range []struct{ name, contentType, body string }{
			{"no body", "", ""},
			{"empty JSON body", "application/json", ""},
			{"{}", "application/json", "{}"},
			{"revoke_tokens false", "application/json", `{"revoke_tokens":false}`},
		} {
			newSecret(g.adminCall(http.MethodPost, rotate, tc.contentType, tc.body))
			if w := g.call(old, nil); w.Code != http.StatusOK {
				t.Fatalf("%s: the token of before is refused: %d %s", tc.name, w.Code, w.Body)
			}
		}

		before, err := g.store.Application(t.Context(), app.AccountID, app.ID)
		storetest.MustNoError(t, err, "Application")
		for _, tc := range []struct {
			name, contentType, body string
			status                  int
		}{
			{"not a boolean", "application/json", `{"revoke_tokens":"yes"}`, http.StatusBadRequest},
			{"unknown member", "application/json", `{"revoke":true}`, http.StatusBadRequest},
			{"not an object", "application/json", `true`, http.StatusBadRequest},
			{"malformed", "application/json", `{"revoke_tokens":`, http.StatusBadRequest},
			{"no media type", "", `{"revoke_tokens":true}`, http.StatusUnsupportedMediaType},
			{"text/plain", "text/plain", `{"revoke_tokens":true}`, http.StatusUnsupportedMediaType},
		} {
			if w := g.adminCall(http.MethodPost, rotate, tc.contentType, tc.body); w.Code != tc.status {
				t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.status)
			}
		}
		after, err := g.store.Application(t.Context(), app.AccountID, app.ID)
		storetest.MustNoError(t, err, "Application")
		if !bytes.Equal(after.SecretHash, before.SecretHash) || after.TokenGeneration != 0 || !after.TokensRevokedAt.IsZero() {
			t.Fatalf("a refused rotation changed the application")
		}

		start := time.Now()
		w := g.adminCall(http.MethodPost, rotate, "application/json", `{"revoke_tokens":true}`)
		var revoked identity.WithSecret
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &revoked) != nil || revoked.TokenGeneration != 1 {
			t.Fatalf("rotate with revoke_tokens: %d %s", w.Code, w.Body)
		}
		if at := revoked.TokensRevokedAt; at.Before(start.Truncate(time.Microsecond)) || at.After(time.Now()) {
			t.Errorf("tokens_revoked_at %v is not the time of the rotation", at)
		}
		wantRefused(t, "a token of before the revocation", g.call(old, nil), skygate.CodeUnauthorized, "revoked")
		// Another replica that still caches the application as it was accepts the old
		// secret for up to ApplicationCacheTTL and issues with the generation it cached.
		stale, _, err := g.issuer.Issue(oauth.Claims{Subject: app.ClientID, ClientID: app.ClientID, AccountID: app.AccountID,
			Scopes: []string{skygate.ScopeCatalogLoungesRead}})
		storetest.MustNoError(t, err, "Issue")
		wantRefused(t, "a token of the old secret from a replica that has not seen the revocation", g.call(stale, nil), skygate.CodeUnauthorized, "revoked")
		fresh := g.token(app.ClientID, revoked.ClientSecret)
		if w := g.call(fresh, nil); w.Code != http.StatusOK {
			t.Fatalf("a token of the new secret: %d %s", w.Code, w.Body)
		}

		events, _, err := g.store.ListAuditEvents(t.Context(), skygate.AuditFilter{Action: "application.rotate_secret", TargetID: app.ID}, skygate.Page{Limit: 1})
		storetest.MustNoError(t, err, "ListAuditEvents")
		if len(events) != 1 || !strings.Contains(string(events[0].Details), `"revoke_tokens":true`) {
			t.Errorf("audit record of the revocation: %+v", events)
		}
	})
}

// TestRevocationOnAStaleReplica: a replica whose application cache still holds the
// generation from before another replica's revocation accepts the revoked tokens, and
// the replaced secret at its token endpoint, until its entry expires (the documented
// bound, ApplicationCacheTTL). The token it issues meanwhile carries the old generation,
// so once the cache knows the new one, it is refused with the others, while the new
// secret's token works; a token of a later generation than the cached one works too.
func TestRevocationOnAStaleReplica(t *testing.T) {
	t.Parallel()
	gateEngines(t, func(t *testing.T, g *gate) {
		app, secret := g.application()
		old := g.token(app.ClientID, secret)
		if w := g.call(old, nil); w.Code != http.StatusOK {
			t.Fatalf("before the revocation: %d %s", w.Code, w.Body)
		}
		newSecret, err := oauth.NewClientSecret()
		storetest.MustNoError(t, err, "NewClientSecret")
		revoked, err := g.store.SetApplicationSecretRevokingTokens(t.Context(), app.AccountID, app.ID, g.hasher.Hash(newSecret), time.Now(), storetest.Audit("SetApplicationSecretRevokingTokens"))
		storetest.MustNoError(t, err, "SetApplicationSecretRevokingTokens")
		if revoked.TokenGeneration != 1 {
			t.Fatalf("generation %d after the first revocation", revoked.TokenGeneration)
		}

		// Within the ttl this replica does not know of the revocation.
		if w := g.call(old, nil); w.Code != http.StatusOK {
			t.Fatalf("the cached generation refused a token before its entry expired: %d %s", w.Code, w.Body)
		}
		stale := g.token(app.ClientID, secret)
		if c, err := g.s.deps.Tokens.VerifyAt(t.Context(), stale, time.Now()); err != nil || c.Generation != 0 {
			t.Fatalf("the replaced secret's token from the cache: %+v, %v; want generation 0", c, err)
		}

		g.later(ApplicationCacheTTL)
		wantRefused(t, "a token of before the revocation", g.call(old, nil), skygate.CodeUnauthorized, "revoked")
		wantRefused(t, "the stale replica's token of the replaced secret", g.call(stale, nil), skygate.CodeUnauthorized, "revoked")
		fresh := g.token(app.ClientID, newSecret)
		if w := g.call(fresh, nil); w.Code != http.StatusOK {
			t.Fatalf("a token of the new secret: %d %s", w.Code, w.Body)
		}

		// A later generation than this replica caches (another replica revoked again
		// and issued with the newest secret) works here too.
		_, err = g.store.SetApplicationSecretRevokingTokens(t.Context(), app.AccountID, app.ID, g.hasher.Hash(newSecret), time.Now(), storetest.Audit("SetApplicationSecretRevokingTokens"))
		storetest.MustNoError(t, err, "SetApplicationSecretRevokingTokens")
		newer, _, err := g.issuer.Issue(oauth.Claims{Subject: app.ClientID, ClientID: app.ClientID, AccountID: app.AccountID,
			Scopes: []string{skygate.ScopeCatalogLoungesRead}, Generation: 2})
		storetest.MustNoError(t, err, "Issue")
		if w := g.call(newer, nil); w.Code != http.StatusOK {
			t.Fatalf("a token of a later generation than the cached one: %d %s", w.Code, w.Body)
		}
		g.later(ApplicationCacheTTL)
		wantRefused(t, "a token of generation 1 after the second revocation", g.call(fresh, nil), skygate.CodeUnauthorized, "revoked")
		if w := g.call(newer, nil); w.Code != http.StatusOK {
			t.Fatalf("a token of the current generation: %d %s", w.Code, w.Body)
		}
	})
}

// TestDeletedApplicationTokens: the tokens of a deleted application are refused at
// once, and a token whose account_id is not its application's account is refused.
func TestDeletedApplicationTokens(t *testing.T) {
	t.Parallel()
	gateEngines(t, func(t *testing.T, g *gate) {
		app, secret := g.application()
		other, _ := g.application()
		tok := g.token(app.ClientID, secret)
		if w := g.call(tok, nil); w.Code != http.StatusOK {
			t.Fatalf("before the deletion: %d %s", w.Code, w.Body)
		}
		// Signed by the service, but for another account than the application's.
		foreign, _, err := g.issuer.Issue(oauth.Claims{Subject: app.ClientID, ClientID: app.ClientID, AccountID: other.AccountID,
			Scopes: []string{skygate.ScopeCatalogLoungesRead}})
		storetest.MustNoError(t, err, "Issue")
		wantRefused(t, "a token of another account", g.call(foreign, nil), skygate.CodeUnauthorized, "another account")

		if w := g.adminCall(http.MethodDelete, "/applications/"+app.ID, "", ""); w.Code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", w.Code, w.Body)
		}
		for range 3 {
			wantRefused(t, "a token of a deleted application", g.call(tok, nil), skygate.CodeUnauthorized, "no longer exists")
		}
	})
}

// TestCertificateBoundTokens: a token with cnf.x5t#S256 works only with that client
// certificate, verified by the listener; an unbound token needs none.
func TestCertificateBoundTokens(t *testing.T) {
	t.Parallel()
	bound, stranger := mustCert(t), mustCert(t)
	gateEngines(t, func(t *testing.T, g *gate) {
		app, secret := g.application(func(a *skygate.Application) { a.ClientCertSHA256 = CertThumbprint(bound) })
		tok := g.token(app.ClientID, secret)
		if w := g.call(tok, bound); w.Code != http.StatusOK {
			t.Fatalf("with the bound certificate: %d %s", w.Code, w.Body)
		}
		wantRefused(t, "without a certificate", g.call(tok, nil), skygate.CodeClientCertificateRequired, "bound to a client certificate")
		wantRefused(t, "with another certificate", g.call(tok, stranger), skygate.CodeClientCertificateRequired, "another client certificate")
		unverified := httptest.NewRequest(http.MethodGet, "/test/b2b", nil)
		unverified.Header.Set("Authorization", "Bearer "+tok)
		unverified.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{bound}} // no verified chain
		wantRefused(t, "with the certificate unverified", g.serve(unverified), skygate.CodeClientCertificateRequired, "bound to a client certificate")

		plain, plainSecret := g.application()
		if w := g.call(g.token(plain.ClientID, plainSecret), nil); w.Code != http.StatusOK {
			t.Fatalf("an unbound token without a certificate: %d %s", w.Code, w.Body)
		}
	})
}

// mustCert returns a self-signed client certificate.
func mustCert(t *testing.T) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "partner"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
