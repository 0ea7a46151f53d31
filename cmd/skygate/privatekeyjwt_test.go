package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// private_key_jwt end to end (RFC 7523): an employee registers an application's JWK
// Set on create and replaces or removes it with PATCH; the partner signs client
// assertions with go-jose and gets tokens with x/oauth2's clientcredentials; a jti is
// accepted once, on every replica.

// pkjClient is a partner holding the private key of one JWK of its application.
type pkjClient struct {
	clientID string
	kid      string
	alg      jose.SignatureAlgorithm
	key      any    // private
	jti      string // of every assertion; a new random one each when ""
}

// publicJWKS is the JWK Set of c's key, as the partner sends it.
func (c *pkjClient) publicJWKS(tb testing.TB) string {
	tb.Helper()
	var pub any
	switch k := c.key.(type) {
	case *ecdsa.PrivateKey:
		pub = k.Public()
	case ed25519.PrivateKey:
		pub = k.Public()
	}
	b, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: c.kid, Algorithm: string(c.alg), Use: "sig"}}})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// assertion signs a fresh client assertion (new jti) for the token endpoint.
func (c *pkjClient) assertion(tb testing.TB) string {
	tb.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: c.alg, Key: c.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", c.kid))
	if err != nil {
		tb.Fatal(err)
	}
	now, jti := time.Now(), c.jti
	if jti == "" {
		jti = rand.Text()
	}
	tok, err := jwt.Signed(signer).Claims(jwt.Claims{
		Issuer: c.clientID, Subject: c.clientID, Audience: jwt.Audience{testPublicURL + oauth.TokenPath},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Minute)), ID: jti,
	}).Serialize()
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// pkjToken asks s for a token with assertion through x/oauth2's clientcredentials
// (client_id and the assertion in the body, no secret).
func (s *testServer) pkjToken(clientID, assertion string) (*oauth2.Token, error) {
	cfg := clientcredentials.Config{
		ClientID: clientID, TokenURL: s.base + oauth.TokenPath, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{"client_assertion_type": {oauth.ClientAssertionType}, "client_assertion": {assertion}},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.client)
	return cfg.Token(ctx)
}

// wantTokenRefused fails unless err is the token endpoint's 401 invalid_client saying
// why.
func wantTokenRefused(tb testing.TB, what string, err error, why string) {
	tb.Helper()
	re, ok := err.(*oauth2.RetrieveError)
	if !ok || re.Response.StatusCode != http.StatusUnauthorized || re.ErrorCode != oauth.CodeInvalidClient ||
		!strings.Contains(re.ErrorDescription, why) {
		tb.Fatalf("%s: %v, want 401 invalid_client saying %q", what, err, why)
	}
}

// mustPKJApplication creates an account and an application with c's JWK Set through
// the admin API, and sets c.clientID; it returns the application's id and secret.
func (s *testServer) mustPKJApplication(c *pkjClient) (id, secret string) {
	s.t.Helper()
	resp, body := s.adminCall(http.MethodPost, "/accounts", `{"name":"pkj `+rand.Text()+`"}`)
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("create account: %d %s", resp.StatusCode, body)
	}
	acc := mustJSON(s.t, body)
	resp, body = s.adminCall(http.MethodPost, "/accounts/"+acc["id"].(string)+"/applications",
		`{"name":"keys","allowed_scopes":["catalog.lounges:read"],"jwks":`+c.publicJWKS(s.t)+`}`)
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("create application: %d %s", resp.StatusCode, body)
	}
	app := mustJSON(s.t, body)
	if keys, _ := app["jwks"].(map[string]any)["keys"].([]any); len(keys) != 1 {
		s.t.Fatalf("created application's jwks: %v", app["jwks"])
	}
	c.clientID = app["client_id"].(string)
	return app["id"].(string), app["client_secret"].(string)
}

func TestPrivateKeyJWT(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		c := &pkjClient{kid: "partner-2026", alg: jose.ES256, key: ecKey}
		appID, secret := s.mustPKJApplication(c)

		tok, err := s.pkjToken(c.clientID, c.assertion(t))
		if err != nil {
			t.Fatalf("token by assertion: %v", err)
		}
		if resp, body := s.get("/v2/catalog/lounges?limit=1", tok.AccessToken, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("catalog with the token: %d %s", resp.StatusCode, body)
		}

		// Replay of one assertion.
		once := c.assertion(t)
		if _, err := s.pkjToken(c.clientID, once); err != nil {
			t.Fatalf("first use: %v", err)
		}
		_, err = s.pkjToken(c.clientID, once)
		wantTokenRefused(t, "replayed assertion", err, "jti was used")

		// A secret beside an assertion is invalid_request.
		resp, body := s.do(s.client, http.MethodPost, s.base+oauth.TokenPath, strings.NewReader(url.Values{
			"grant_type": {"client_credentials"}, "client_id": {c.clientID}, "client_secret": {secret},
			"client_assertion_type": {oauth.ClientAssertionType}, "client_assertion": {c.assertion(t)},
		}.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if resp.StatusCode != http.StatusBadRequest || mustJSON(t, body)["error"] != oauth.CodeInvalidRequest {
			t.Fatalf("secret and assertion: %d %s", resp.StatusCode, body)
		}

		// PATCH replaces the set: the old key stops working at once, the new one works.
		_, edKey, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		next := &pkjClient{clientID: c.clientID, kid: "partner-2027", alg: jose.EdDSA, key: edKey}
		resp, body = s.adminCall(http.MethodPatch, "/applications/"+appID, `{"jwks":`+next.publicJWKS(t)+`}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("patch jwks: %d %s", resp.StatusCode, body)
		}
		if keys := mustJSON(t, body)["jwks"].(map[string]any)["keys"].([]any); keys[0].(map[string]any)["kid"] != "partner-2027" {
			t.Fatalf("patched jwks: %v", keys)
		}
		_, err = s.pkjToken(c.clientID, c.assertion(t))
		wantTokenRefused(t, "the replaced key", err, "no key registered")
		if _, err := s.pkjToken(c.clientID, next.assertion(t)); err != nil {
			t.Fatalf("the new key: %v", err)
		}

		// Neither a partner nor an auditor may change a JWK Set.
		db := s.openStore()
		auditor := s.mintToken(s.keyManager(db, time.Now), time.Now, testPublicURL, oauth.Claims{
			Subject: "auditor-1", ClientID: "skygate-admin-console", Scopes: []string{skygate.ScopeAuditRead}, Roles: []string{"auditor"},
		})
		for who, bearer := range map[string]string{"partner": tok.AccessToken, "auditor": auditor} {
			resp, body := s.do(s.client, http.MethodPatch, s.base+"/api/v1/admin/applications/"+appID, strings.NewReader(`{"jwks":null}`),
				map[string]string{"Authorization": "Bearer " + bearer, "Content-Type": "application/json"})
			if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s PATCH: %d %.200s", who, resp.StatusCode, body)
			}
		}
		if _, err := s.pkjToken(c.clientID, next.assertion(t)); err != nil {
			t.Fatalf("the new key after refused patches: %v", err)
		}

		// An empty patch changes nothing and answers the application with its set.
		resp, body = s.adminCall(http.MethodPatch, "/applications/"+appID, `{}`)
		if resp.StatusCode != http.StatusOK || mustJSON(t, body)["jwks"] == nil {
			t.Fatalf("empty patch: %d %s", resp.StatusCode, body)
		}

		// Invalid sets are 422 and change nothing.
		for _, bad := range []string{
			`{"jwks":{"keys":[{"kty":"oct","kid":"s","k":"c2VjcmV0"}]}}`,
			`{"jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}}`,
			`{"jwks":[]}`,
		} {
			if resp, body := s.adminCall(http.MethodPatch, "/applications/"+appID, bad); resp.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("patch %s: %d %s", bad, resp.StatusCode, body)
			}
		}
		if resp, body := s.adminCall(http.MethodPatch, "/applications/"+skygate.NewID(), `{"jwks":null}`); resp.StatusCode != http.StatusNotFound {
			t.Errorf("patch of an unknown application: %d %s", resp.StatusCode, body)
		}

		// null removes the set: assertions are refused, the secret still works.
		if resp, body := s.adminCall(http.MethodPatch, "/applications/"+appID, `{"jwks":null}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("remove jwks: %d %s", resp.StatusCode, body)
		}
		_, err = s.pkjToken(c.clientID, next.assertion(t))
		wantTokenRefused(t, "after removal", err, "no key registered")
		s.mustToken(credentials{ClientID: c.clientID, ClientSecret: secret}, "")

		// Every change was audited.
		resp, body = s.adminCall(http.MethodGet, "/audit-events?action=application.update&target_id="+appID, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("audit: %d %s", resp.StatusCode, body)
		}
		if n := len(mustJSON(t, body)["data"].([]any)); n != 2 {
			t.Errorf("%d application.update records, want 2 (replace, remove)", n)
		}
	})
}

// TestPrivateKeyJWTReplayAcrossReplicas sends one assertion to two replicas on one
// PostgreSQL at once (checkReplayRace).
func TestPrivateKeyJWTReplayAcrossReplicas(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t),
		"SKYGATE_TOKEN_RATE_BURST": "100", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "100"})
	checkReplayRace(t, []*testServer{startServer(t, env), startServer(t, env)})
}

// TestPrivateKeyJWTReplayConcurrent is the same race on one replica, on both engines.
func TestPrivateKeyJWTReplayConcurrent(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, map[string]string{"SKYGATE_TOKEN_RATE_BURST": "100", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "100"}))
		checkReplayRace(t, []*testServer{s, s, s})
	})
}

// checkReplayRace sends each of ten assertions to every replica at once: exactly one
// call of each gets a token.
func checkReplayRace(t *testing.T, replicas []*testServer) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c := &pkjClient{kid: "k", alg: jose.ES256, key: key}
	replicas[0].mustPKJApplication(c)
	for i := range 10 {
		a := c.assertion(t)
		errs := make([]error, len(replicas))
		var wg sync.WaitGroup
		for j, r := range replicas {
			wg.Go(func() { _, errs[j] = r.pkjToken(c.clientID, a) })
		}
		wg.Wait()
		ok := 0
		for j, err := range errs {
			if err == nil {
				ok++
				continue
			}
			wantTokenRefused(t, fmt.Sprintf("call %d", j), err, "jti was used")
		}
		if ok != 1 {
			t.Fatalf("round %d: %d replicas accepted one assertion, want 1", i, ok)
		}
	}
}
