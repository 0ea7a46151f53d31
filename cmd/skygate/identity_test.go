package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/httpapi"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/storetest"
)

var catalogScopes = []string{skygate.ScopeCatalogLoungesRead, skygate.ScopeCatalogFastTrackRead}

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", catalogScopes)

		type want struct {
			status int
			err    string
			scope  string
		}
		form := func(kv ...string) string {
			v := url.Values{}
			for i := 0; i < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v.Encode()
		}
		const formCT, jsonCT = "application/x-www-form-urlencoded", "application/json"
		all := strings.Join(catalogScopes, " ")
		for _, tc := range []struct {
			name        string
			contentType string
			body        string
			basic       [2]string
			want        want
		}{
			{"basic, all scopes", formCT, form("grant_type", "client_credentials"), [2]string{c.ClientID, c.ClientSecret}, want{200, "", all}},
			{"post, form", formCT, form("grant_type", "client_credentials", "client_id", c.ClientID, "client_secret", c.ClientSecret), [2]string{}, want{200, "", all}},
			{"post, JSON", jsonCT, `{"grant_type":"client_credentials","client_id":"` + c.ClientID + `","client_secret":"` + c.ClientSecret + `"}`, [2]string{}, want{200, "", all}},
			{"scope intersection", formCT, form("grant_type", "client_credentials", "scope", "catalog.lounges:read esim:write"), [2]string{c.ClientID, c.ClientSecret}, want{200, "", "catalog.lounges:read"}},
			{"empty intersection", formCT, form("grant_type", "client_credentials", "scope", "esim:write"), [2]string{c.ClientID, c.ClientSecret}, want{400, "invalid_scope", ""}},
			{"unknown scope", formCT, form("grant_type", "client_credentials", "scope", "root"), [2]string{c.ClientID, c.ClientSecret}, want{400, "invalid_scope", ""}},
			{"bad secret", formCT, form("grant_type", "client_credentials"), [2]string{c.ClientID, "sks_wrong"}, want{401, "invalid_client", ""}},
			{"unknown client", formCT, form("grant_type", "client_credentials", "client_id", "skg_nobody", "client_secret", c.ClientSecret), [2]string{}, want{401, "invalid_client", ""}},
			{"both auth styles", formCT, form("grant_type", "client_credentials", "client_id", c.ClientID, "client_secret", c.ClientSecret), [2]string{c.ClientID, c.ClientSecret}, want{400, "invalid_request", ""}},
			{"unsupported grant", formCT, form("grant_type", "password"), [2]string{c.ClientID, c.ClientSecret}, want{400, "unsupported_grant_type", ""}},
			{"missing grant", formCT, form(), [2]string{c.ClientID, c.ClientSecret}, want{400, "invalid_request", ""}},
			{"other media type", "text/plain", "grant_type=client_credentials", [2]string{c.ClientID, c.ClientSecret}, want{400, "invalid_request", ""}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{"Content-Type": tc.contentType}
				if tc.basic[0] != "" {
					h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(tc.basic[0])+":"+url.QueryEscape(tc.basic[1])))
				}
				resp, body := s.do(s.client, http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader(tc.body), h)
				if resp.StatusCode != tc.want.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want.status, body)
				}
				if resp.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
				}
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil {
					t.Fatal(err)
				}
				if tc.want.err != "" {
					if m["error"] != tc.want.err {
						t.Errorf("error %v, want %s", m["error"], tc.want.err)
					}
					return
				}
				if m["token_type"] != "Bearer" || m["scope"] != tc.want.scope || m["expires_in"] != float64(3600) {
					t.Errorf("response %v", m)
				}
			})
		}
	})
}

// b64 is base64url without padding.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestForgedAndInvalidTokens(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", catalogScopes)
		good := s.mustToken(c, "")
		db := s.openStore()
		km := s.keyManager(db, time.Now)
		claims := oauth.Claims{Subject: c.ClientID, ClientID: c.ClientID, AccountID: c.AccountID, Scopes: catalogScopes}
		parts := strings.Split(good, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])

		// alg none and HS256 keyed with the public JWKS (key confusion).
		noneTok := b64([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + parts[1] + "."
		_, jwks := s.get("/.well-known/jwks.json", "", nil)
		hsInput := b64([]byte(`{"alg":"HS256","typ":"at+jwt","kid":"`+kidOf(t, good)+`"}`)) + "." + parts[1]
		mac := hmac.New(sha256.New, jwks)
		mac.Write([]byte(hsInput))
		hsTok := hsInput + "." + b64(mac.Sum(nil))

		// A real ES256 signature by a key the server does not know.
		stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		unknownKid := signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"stranger"}`, payload)

		// Tampered claims: more scopes, same signature.
		tampered := parts[0] + "." + b64(bytes.Replace(payload, []byte(`"scopes":[`), []byte(`"scopes":["esim:write",`), 1)) + "." + parts[2]
		// typ JWT instead of at+jwt, signed by the real key: re-sign is impossible from
		// outside, so change the header and keep the signature.
		typJWT := b64([]byte(`{"alg":"ES256","typ":"JWT","kid":"`+kidOf(t, good)+`"}`)) + "." + parts[1] + "." + parts[2]

		// An expired token signed by a key the server publishes: a key made active two
		// hours ago (as by a rotation back then) signs a token with a one-hour lifetime.
		past := func() time.Time { return time.Now().Add(-2 * time.Hour) }
		kmPast := s.keyManager(db, past)
		if _, err := kmPast.Rotate(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		expired := s.mintToken(kmPast, past, testPublicURL, claims)
		wrongAud := s.mintToken(km, time.Now, "https://other.api.example", claims)
		wrongIss := mintWithIssuer(t, km, "https://evil.example", claims)

		for _, tc := range []struct {
			name   string
			header string
			status int
			code   string
		}{
			{"valid", "Bearer " + good, 200, ""},
			{"scheme in any case", "bEARER " + good, 200, ""},
			{"missing", "", 401, "Unauthorized"},
			{"not bearer", "Basic " + good, 401, "Unauthorized"},
			{"garbage", "Bearer abc.def.ghi", 401, "Unauthorized"},
			{"alg none", "Bearer " + noneTok, 401, "Unauthorized"},
			{"HS256 with the public key", "Bearer " + hsTok, 401, "Unauthorized"},
			{"unknown kid", "Bearer " + unknownKid, 401, "Unauthorized"},
			{"tampered claims", "Bearer " + tampered, 401, "Unauthorized"},
			{"typ JWT", "Bearer " + typJWT, 401, "Unauthorized"},
			{"expired", "Bearer " + expired, 401, "Unauthorized"},
			{"wrong iss", "Bearer " + wrongIss, 401, "Unauthorized"},
			{"huge", "Bearer " + strings.Repeat("a", 9000), 401, "Unauthorized"},
			{"wrong aud", "Bearer " + wrongAud, 403, "Forbidden"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.header != "" {
					h["Authorization"] = tc.header
				}
				resp, body := s.do(s.client, http.MethodGet, s.base+"/v2/catalog/lounges?limit=1", nil, h)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
				}
				if tc.status == 200 {
					return
				}
				p := problemOf(t, resp, body)
				if p["code"] != tc.code {
					t.Errorf("code %v, want %s", p["code"], tc.code)
				}
				if wa := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(wa, "Bearer ") || !strings.Contains(wa, `error="invalid_token"`) {
					t.Errorf("WWW-Authenticate %q", wa)
				}
			})
		}

		t.Run("insufficient scope", func(t *testing.T) {
			ftOnly := s.mustToken(c, skygate.ScopeCatalogFastTrackRead)
			resp, body := s.get("/v2/catalog/lounges", ftOnly, nil)
			p := problemOf(t, resp, body)
			wa := resp.Header.Get("WWW-Authenticate")
			if resp.StatusCode != 403 || p["code"] != "InsufficientScope" || !strings.Contains(wa, `error="insufficient_scope"`) || !strings.Contains(wa, `scope="catalog.lounges:read"`) {
				t.Errorf("%d %v %q", resp.StatusCode, p, wa)
			}
		})
	})
}

func kidOf(tb testing.TB, tok string) string {
	tb.Helper()
	h, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	var hdr struct{ Kid string }
	if err := json.Unmarshal(h, &hdr); err != nil {
		tb.Fatal(err)
	}
	return hdr.Kid
}

func signES256(tb testing.TB, k *ecdsa.PrivateKey, header string, payload []byte) string {
	tb.Helper()
	input := b64([]byte(header)) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	r, sv, err := ecdsa.Sign(rand.Reader, k, sum[:])
	if err != nil {
		tb.Fatal(err)
	}
	if n := k.Params().N; sv.Cmp(new(big.Int).Rsh(n, 1)) > 0 { // the low-s form, as the service signs
		sv.Sub(n, sv)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	sv.FillBytes(sig[32:])
	return input + "." + b64(sig)
}

func mintWithIssuer(tb testing.TB, km *oauth.KeyManager, iss string, c oauth.Claims) string {
	tb.Helper()
	i, err := oauth.NewIssuer(km, oauth.IssuerConfig{Issuer: iss, Audience: testPublicURL})
	if err != nil {
		tb.Fatal(err)
	}
	tok, _, err := i.Issue(c)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func TestKeyRotationKeepsOldTokensValid(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, map[string]string{"SKYGATE_KEY_PREPUBLISH": "0s"}))
		c := s.mustBootstrap("acme", catalogScopes)
		old := s.mustToken(c, "")

		var out bytes.Buffer
		if err := run(context.Background(), []string{"skygate", "keys", "rotate"}, func(k string) string { return s.env[k] }, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		var rotated struct{ Kid string }
		if err := json.Unmarshal(out.Bytes(), &rotated); err != nil || rotated.Kid == "" || rotated.Kid == kidOf(t, old) {
			t.Fatalf("rotate printed %q: %v", out.String(), err)
		}

		// A token signed with the new key (as another replica would after rotating) is
		// accepted: the unknown kid makes the server reload its keys once.
		db := s.openStore()
		km := s.keyManager(db, time.Now)
		fresh := s.mintToken(km, time.Now, testPublicURL, oauth.Claims{Subject: c.ClientID, ClientID: c.ClientID, AccountID: c.AccountID, Scopes: catalogScopes})
		if kidOf(t, fresh) != rotated.Kid {
			t.Fatalf("fresh token kid %s, want %s", kidOf(t, fresh), rotated.Kid)
		}
		for name, tok := range map[string]string{"old": old, "new": fresh} {
			if resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != 200 {
				t.Errorf("%s token: %d %s", name, resp.StatusCode, body)
			}
		}
		_, body := s.get("/.well-known/jwks.json", "", nil)
		if !bytes.Contains(body, []byte(rotated.Kid)) || !bytes.Contains(body, []byte(kidOf(t, old))) {
			t.Errorf("JWKS lacks a kid: %s", body)
		}
	})
}

func TestSuspendedAccountTokensStopWorking(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", catalogScopes)
		tok := s.mustToken(c, "")
		if resp, _ := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != 200 {
			t.Fatalf("before suspension: %d", resp.StatusCode)
		}
		db := s.openStore()
		if _, err := db.SetAccountStatus(context.Background(), c.AccountID, skygate.AccountSuspended, time.Now(), storetest.Audit("SetAccountStatus")); err != nil {
			t.Fatal(err)
		}
		// Another process suspended the account: the server learns it by polling (1 s).
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil)
			if resp.StatusCode == 401 {
				if p := problemOf(t, resp, body); !strings.Contains(p["detail"].(string), "suspended") {
					t.Errorf("detail %v", p["detail"])
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("suspended account still accepted: %d", resp.StatusCode)
			}
			time.Sleep(100 * time.Millisecond)
		}
		// And it gets no new tokens: the secret is right, the grant is refused.
		resp, body := s.do(s.client, http.MethodPost, s.base+"/oauth/v2/token", strings.NewReader("grant_type=client_credentials"),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(c.ClientID+":"+c.ClientSecret))})
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"invalid_grant"`) {
			t.Errorf("token for a suspended account: %d %s", resp.StatusCode, body)
		}
	})
}

func TestBootstrapIsIdempotentByName(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	first := s.mustBootstrap("acme", catalogScopes, "--sandbox")
	second := s.mustBootstrap("acme", catalogScopes)
	if first.AccountID != second.AccountID || first.ClientID != second.ClientID || second.ClientSecret != "" || first.ClientSecret == "" {
		t.Fatalf("first %+v second %+v", first, second)
	}
	rotated := s.mustBootstrap("acme", catalogScopes, "--rotate-secret")
	if rotated.ClientSecret == "" || rotated.ClientSecret == first.ClientSecret {
		t.Fatalf("rotate: %+v", rotated)
	}
	s.mustToken(rotated, "")
}

// TestBootstrapRevokeTokens: bootstrap --rotate-secret --revoke-tokens makes the tokens
// of the secrets before it fail on a running server (another process, so within the
// application cache's ttl) while the new secret's work at once; --revoke-tokens
// without --rotate-secret is refused and changes nothing.
func TestBootstrapRevokeTokens(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("acme", catalogScopes)
	old := s.mustToken(c, "")
	catalog := []revocationRoute{{"catalog", func(s *testServer, tok string) (*http.Response, []byte) {
		return s.get("/v2/catalog/lounges?limit=1", tok, nil)
	}}}

	args := []string{"skygate", "bootstrap", "--account", "acme", "--scopes", strings.Join(catalogScopes, " "), "--revoke-tokens"}
	var out bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return s.env[k] }, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--revoke-tokens") || !strings.Contains(err.Error(), "--rotate-secret") {
		t.Fatalf("--revoke-tokens without --rotate-secret: %v, %q", err, out.String())
	}
	if out.Len() != 0 {
		t.Errorf("a refused bootstrap printed %q", out.String())
	}
	time.Sleep(httpapi.ApplicationCacheTTL + 100*time.Millisecond)
	everywhere(t, "a token after the refused bootstrap", []*testServer{s}, catalog, old, http.StatusOK, false)
	s.mustToken(c, "")

	rotated := s.mustBootstrap("acme", catalogScopes, "--rotate-secret", "--revoke-tokens")
	if rotated.ClientID != c.ClientID || rotated.ClientSecret == "" || rotated.ClientSecret == c.ClientSecret {
		t.Fatalf("bootstrap --rotate-secret --revoke-tokens: %+v", rotated)
	}
	everywhere(t, "a token of the new secret", []*testServer{s}, catalog, s.mustToken(rotated, ""), http.StatusOK, false)
	everywhere(t, "a token of before the revocation", []*testServer{s}, catalog, old, http.StatusUnauthorized, true)
}
