package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// Token revocation (RFC 7009) and introspection (RFC 7662) end to end: the token comes
// from x/oauth2's clientcredentials, the calls are the plain form posts a partner's
// resource server makes, and every answer is checked against the contract by the
// test client.

// oauthCall posts form to path with c's client_secret_basic and returns the answer.
func (s *testServer) oauthCall(path string, c credentials, form url.Values) (*http.Response, []byte) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp, body
}

// introspect asks c's introspection of tok, which must be answered 200, and returns
// the body.
func (s *testServer) introspect(c credentials, tok string) map[string]any {
	s.t.Helper()
	resp, body := s.oauthCall(oauth.IntrospectionPath, c, url.Values{"token": {tok}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
		s.t.Fatalf("introspect: %d %s", resp.StatusCode, body)
	}
	return mustJSON(s.t, body)
}

// wantInactive fails unless the answer is exactly {"active":false}.
func wantInactive(t *testing.T, what string, got map[string]any) {
	t.Helper()
	if len(got) != 1 || got["active"] != false {
		t.Errorf("%s: %v, want exactly {\"active\":false}", what, got)
	}
}

// revoke revokes tok as c; every revocation with a client that authenticates is 200.
func (s *testServer) revoke(c credentials, tok string) {
	s.t.Helper()
	resp, body := s.oauthCall(oauth.RevocationPath, c, url.Values{"token": {tok}, "token_type_hint": {"access_token"}})
	if resp.StatusCode != http.StatusOK || len(body) != 0 || resp.Header.Get("Cache-Control") != "no-store" {
		s.t.Fatalf("revoke: %d %q", resp.StatusCode, body)
	}
}

// libraryToken obtains a token of c with golang.org/x/oauth2's clientcredentials.
func (s *testServer) libraryToken(c credentials) string {
	s.t.Helper()
	cfg := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: s.base + oauth.TokenPath}
	ctx := context.WithValue(s.t.Context(), oauth2.HTTPClient, s.client)
	tok, err := cfg.Token(ctx)
	if err != nil {
		s.t.Fatalf("clientcredentials: %v", err)
	}
	return tok.AccessToken
}

func TestIntrospection(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a := s.mustBootstrap("introspect-a", skygate.B2BScopes)
		b := s.mustBootstrap("introspect-b", skygate.B2BScopes)
		narrow := s.mustBootstrap("introspect-narrow", catalogScopes)
		tok := s.libraryToken(a)

		got := s.introspect(a, tok)
		if got["active"] != true || got["client_id"] != a.ClientID || got["sub"] != a.ClientID ||
			got["account_id"] != a.AccountID || got["token_type"] != "Bearer" ||
			got["scope"] != strings.Join(skygate.B2BScopes, " ") || got["iss"] != testPublicURL {
			t.Errorf("an active token: %v", got)
		}
		exp, iat := got["exp"].(float64), got["iat"].(float64)
		if exp-iat != time.Hour.Seconds() {
			t.Errorf("exp %v − iat %v, want an hour", exp, iat)
		}

		// Another account's token, garbage, a forged signature, an expired token.
		wantInactive(t, "another account's token", s.introspect(b, tok))
		wantInactive(t, "garbage", s.introspect(a, "not-a-token"))
		wantInactive(t, "a forged signature", s.introspect(a, tok[:len(tok)-4]+"AAAA"))
		db := s.openStore()
		past := func() time.Time { return time.Now().Add(-2 * time.Hour) }
		// A key made active two hours ago (as by a rotation then) signs a one-hour token.
		kmPast := s.keyManager(db, past)
		if _, err := kmPast.Rotate(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		expired := s.mintToken(kmPast, past, testPublicURL, oauth.Claims{
			Subject: a.ClientID, ClientID: a.ClientID, AccountID: a.AccountID, Scopes: catalogScopes})
		wantInactive(t, "an expired token", s.introspect(a, expired))

		// A client without oauth.introspect is 403; a wrong secret 401; no token 400.
		resp, body := s.oauthCall(oauth.IntrospectionPath, narrow, url.Values{"token": {tok}})
		if resp.StatusCode != http.StatusForbidden || mustJSON(t, body)["error"] != "unauthorized_client" {
			t.Errorf("a client without oauth.introspect: %d %s", resp.StatusCode, body)
		}
		wrong := a
		wrong.ClientSecret += "x"
		resp, body = s.oauthCall(oauth.IntrospectionPath, wrong, url.Values{"token": {tok}})
		if resp.StatusCode != http.StatusUnauthorized || mustJSON(t, body)["error"] != "invalid_client" ||
			!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("a wrong secret: %d %s", resp.StatusCode, body)
		}
		resp, body = s.oauthCall(oauth.IntrospectionPath, a, url.Values{})
		if resp.StatusCode != http.StatusBadRequest || mustJSON(t, body)["error"] != "invalid_request" {
			t.Errorf("no token: %d %s", resp.StatusCode, body)
		}

		// A deleted application's token, introspected by another application of its
		// account.
		resp, body = s.adminCall(http.MethodPost, "/accounts/"+a.AccountID+"/applications",
			`{"name":"Short-lived","allowed_scopes":["catalog.lounges:read","oauth.introspect"]}`)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create application: %d %s", resp.StatusCode, body)
		}
		app := mustJSON(t, body)
		short := credentials{AccountID: a.AccountID, ClientID: app["client_id"].(string), ClientSecret: app["client_secret"].(string)}
		shortTok := s.mustToken(short, "")
		if got := s.introspect(a, shortTok); got["active"] != true {
			t.Fatalf("the second application's token before its deletion: %v", got)
		}
		// An employee granted it oauth.introspect: it introspects the account's tokens.
		if got := s.introspect(short, tok); got["active"] != true || got["client_id"] != a.ClientID {
			t.Errorf("introspected by an application granted oauth.introspect by an employee: %v", got)
		}
		if resp, body := s.adminCall(http.MethodDelete, "/applications/"+app["id"].(string), ""); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delete: %d %s", resp.StatusCode, body)
		}
		wantInactive(t, "a deleted application's token", s.introspect(a, shortTok))

		// A suspended account's token.
		bTok := s.mustToken(b, "")
		if resp, body := s.adminCall(http.MethodPatch, "/accounts/"+b.AccountID, `{"status":"suspended"}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("suspend: %d %s", resp.StatusCode, body)
		}
		wantInactive(t, "a suspended account's token", s.introspect(b, bTok))
	})
}

func TestRevocationEndpoint(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a := s.mustBootstrap("revoke-a", skygate.B2BScopes)
		b := s.mustBootstrap("revoke-b", skygate.B2BScopes)
		tok, other := s.libraryToken(a), s.mustToken(a, "")
		works := func(what, tok string, want int) {
			t.Helper()
			if resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != want {
				t.Fatalf("%s: %d %.300s, want %d", what, resp.StatusCode, body, want)
			}
		}
		works("a fresh token (cached by the verifier)", tok, http.StatusOK)

		// Discovery advertises both endpoints (RFC 8414 §2).
		_, disc := s.get("/.well-known/oauth-authorization-server", "", nil)
		meta := mustJSON(t, disc)
		if meta["revocation_endpoint"] != testPublicURL+oauth.RevocationPath ||
			meta["introspection_endpoint"] != testPublicURL+oauth.IntrospectionPath ||
			meta["revocation_endpoint_auth_methods_supported"] == nil || meta["introspection_endpoint_auth_methods_supported"] == nil {
			t.Errorf("discovery: %s", disc)
		}

		// Another account's client, garbage, and a wrong secret change nothing.
		s.revoke(b, tok)
		s.revoke(a, "garbage")
		works("a token another account tried to revoke", tok, http.StatusOK)
		wrong := a
		wrong.ClientSecret += "x"
		resp, body := s.oauthCall(oauth.RevocationPath, wrong, url.Values{"token": {tok}})
		if resp.StatusCode != http.StatusUnauthorized || mustJSON(t, body)["error"] != "invalid_client" {
			t.Errorf("a wrong secret: %d %s", resp.StatusCode, body)
		}
		resp, body = s.oauthCall(oauth.RevocationPath, a, url.Values{})
		if resp.StatusCode != http.StatusBadRequest || mustJSON(t, body)["error"] != "invalid_request" {
			t.Errorf("no token: %d %s", resp.StatusCode, body)
		}
		works("a token after failed revocations", tok, http.StatusOK)

		// Its own client revokes it: refused at once, although the verifier cached it;
		// the other token of the client still works; revoking again is still 200.
		s.revoke(a, tok)
		works("a revoked token", tok, http.StatusUnauthorized)
		wantInactive(t, "a revoked token", s.introspect(a, tok))
		works("another token of the client", other, http.StatusOK)
		s.revoke(a, tok)
		claims := mustClaims(t, tok)
		r, err := s.openStore().TokenRevocation(t.Context(), a.AccountID, claims["jti"].(string))
		storetest.MustNoError(t, err, "TokenRevocation")
		if r.ClientID != a.ClientID || r.ExpiresAt.Unix() != int64(claims["exp"].(float64)) {
			t.Errorf("stored revocation %+v, claims %v", r, claims)
		}
	})
}

// TestRevocationReachesReplicas: a token revoked through one replica is refused by
// another that had verified and cached it, within the poll (waiting up to a few
// seconds on a busy machine), and by a replica started later at once.
func TestRevocationReachesReplicas(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t)})
	r0, r1 := startServer(t, env), startServer(t, env)
	c := r0.mustBootstrap("revoke-replicas", skygate.B2BScopes)
	tok := r0.libraryToken(c)
	routes := []revocationRoute{{"catalog", func(s *testServer, tok string) (*http.Response, []byte) {
		return s.get("/v2/catalog/lounges?limit=1", tok, nil)
	}}, {"webhooks", func(s *testServer, tok string) (*http.Response, []byte) {
		return s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks", tok, "", nil)
	}}}
	everywhere(t, "a fresh token", []*testServer{r0, r1}, routes, tok, http.StatusOK, false)
	r1.revoke(c, tok)
	everywhere(t, "on the revoking replica, at once", []*testServer{r1}, routes, tok, http.StatusUnauthorized, false)
	everywhere(t, "on the other replica", []*testServer{r0}, routes, tok, http.StatusUnauthorized, true)
	wantInactive(t, "introspected on the other replica", r0.introspect(c, tok))
	r2 := startServer(t, env)
	everywhere(t, "on a replica started later, at once", []*testServer{r2}, routes, tok, http.StatusUnauthorized, false)
}

// mustClaims decodes the payload of tok without verifying it.
func mustClaims(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// oauthHostileCases are the hostile catalogue's requests to the revocation and
// introspection endpoints as client c: bodies that are too large, of the wrong type,
// malformed or with repeated parameters are 400, broken client authentication 401,
// and tokens that are garbage, huge, with NUL bytes or alg none a 200 that revokes
// nothing and introspects inactive.
func oauthHostileCases(c credentials) []hostileCase {
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic(c)}
	noneTok := b64([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + b64([]byte(`{"sub":"`+c.ClientID+`"}`)) + "."
	var cases []hostileCase
	for _, path := range []string{oauth.RevocationPath, oauth.IntrospectionPath} {
		name := path[len("/oauth/v2/"):]
		with := func(kv ...string) map[string]string {
			h := map[string]string{}
			for k, v := range form {
				h[k] = v
			}
			for i := 0; i < len(kv); i += 2 {
				h[kv[i]] = kv[i+1]
			}
			return h
		}
		cases = append(cases,
			hostileCase{name: name + " body over 64 KiB", method: "POST", path: path, header: form, body: "token=" + strings.Repeat("a", 1<<20), want: 400, format: "oauth"},
			hostileCase{name: name + " as text/plain", method: "POST", path: path, header: with("Content-Type", "text/plain"), body: "token=x", want: 400, format: "oauth"},
			hostileCase{name: name + " without Content-Type", method: "POST", path: path, header: map[string]string{"Authorization": basic(c)}, body: "token=x", want: 400, format: "oauth"},
			hostileCase{name: name + " token twice", method: "POST", path: path, header: form, body: "token=a&token=b", want: 400, format: "oauth"},
			hostileCase{name: name + " malformed form", method: "POST", path: path, header: form, body: "token=%zz", want: 400, format: "oauth"},
			hostileCase{name: name + " JSON token a number", method: "POST", path: path, header: with("Content-Type", "application/json"), body: `{"token":1}`, want: 400, format: "oauth"},
			hostileCase{name: name + " without client authentication", method: "POST", path: path, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: "token=x", want: 401, format: "oauth"},
			hostileCase{name: name + " Basic not base64", method: "POST", path: path, header: with("Authorization", "Basic %%%"), body: "token=x", want: 401, format: "oauth"},
			hostileCase{name: name + " client_id with NUL", method: "POST", path: path, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: "token=x&client_id=a%00&client_secret=s", want: 401, format: "oauth"},
			hostileCase{name: name + " garbage token", method: "POST", path: path, header: form, body: "token=not.a.token", want: 200, format: "oauth"},
			hostileCase{name: name + " token with NUL", method: "POST", path: path, header: form, body: "token=a%00b", want: 200, format: "oauth"},
			hostileCase{name: name + " token of 60 KiB", method: "POST", path: path, header: form, body: "token=" + strings.Repeat("A", 60<<10), want: 200, format: "oauth"},
			hostileCase{name: name + " alg none token", method: "POST", path: path, header: form, body: "token=" + noneTok, want: 200, format: "oauth"},
			hostileCase{name: name + " invalid UTF-8 token", method: "POST", path: path, header: form, body: "token=%ff%fe", want: 200, format: "oauth"},
		)
	}
	return cases
}

// TestRevocationTLSClientAuth: a client bound to a certificate introspects and revokes
// with that certificate alone (tls_client_auth, client_id in the body, mutual-TLS
// listener), as it may ask for tokens; without the certificate it is 401
// invalid_client.
func TestRevocationTLSClientAuth(t *testing.T) {
	t.Parallel()
	s := startServer(t, engines[0].env(t, nil))
	certPEM, err := os.ReadFile(devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki")).ClientCert)
	if err != nil {
		t.Fatal(err)
	}
	x5t := thumbprintOfPEM(t, certPEM)
	bound := s.mustBootstrap("tls-introspect", skygate.B2BScopes, "--client-cert-sha256", x5t)
	tok := s.mustToken(bound, "")
	call := func(c *http.Client, base, path string) (*http.Response, []byte) {
		form := url.Values{"client_id": {bound.ClientID}, "token": {tok}}
		return s.do(c, http.MethodPost, base+path, strings.NewReader(form.Encode()),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	}
	resp, body := call(s.mtlsClient, s.mtlsBase, oauth.IntrospectionPath)
	got := mustJSON(t, body)
	if resp.StatusCode != http.StatusOK || got["active"] != true || got["cnf"].(map[string]any)["x5t#S256"] != x5t {
		t.Fatalf("introspect with tls_client_auth: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{oauth.IntrospectionPath, oauth.RevocationPath} {
		if resp, body := call(s.client, s.base, path); resp.StatusCode != http.StatusUnauthorized || mustJSON(t, body)["error"] != "invalid_client" {
			t.Errorf("%s on the plain listener without a secret: %d %s", path, resp.StatusCode, body)
		}
	}
	if resp, body := call(s.mtlsClient, s.mtlsBase, oauth.RevocationPath); resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke with tls_client_auth: %d %s", resp.StatusCode, body)
	}
	wantInactive(t, "a token revoked with tls_client_auth", s.introspect(bound, tok))
}

// TestRevocationPrivateKeyJWT: a client that authenticates by private_key_jwt revokes
// its token with a client assertion, as it asked for it.
func TestRevocationPrivateKeyJWT(t *testing.T) {
	t.Parallel()
	s := startServer(t, engines[0].env(t, nil))
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := &pkjClient{kid: "revoker", alg: jose.ES256, key: key}
	s.mustPKJApplication(c)
	tok, err := s.pkjToken(c.clientID, c.assertion(t))
	if err != nil {
		t.Fatalf("token by assertion: %v", err)
	}
	form := url.Values{"client_id": {c.clientID}, "token": {tok.AccessToken},
		"client_assertion_type": {oauth.ClientAssertionType}, "client_assertion": {c.assertion(t)}}
	resp, body := s.do(s.client, http.MethodPost, s.base+oauth.RevocationPath, strings.NewReader(form.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke by assertion: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.get("/v2/catalog/lounges?limit=1", tok.AccessToken, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token: %d %.300s", resp.StatusCode, body)
	}
}
