package login

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// hostileProvider is an OpenID provider whose answers a test can spoil one at a time:
// discovery, JWKS, token and userinfo endpoints, ES256 ID tokens.
type hostileProvider struct {
	srv              *httptest.Server
	key, other       *ecdsa.PrivateKey
	clientID, secret string

	mu sync.Mutex
	// claims edits the ID token's claims; sign picks the signing key; idToken false
	// leaves id_token out; userSub is userinfo's sub; tokenStatus, when set, is the
	// token endpoint's failure status.
	nonce       string
	claims      func(map[string]any)
	signWith    *ecdsa.PrivateKey
	idToken     bool
	userSub     string
	tokenStatus int
}

const hostileSubject = "employee-42"

func newHostileProvider(t *testing.T) *hostileProvider {
	t.Helper()
	p := &hostileProvider{clientID: "skygate", secret: "provider-secret"}
	var err error
	p.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mustNoError(t, err)
	p.other, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mustNoError(t, err)
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize", "token_endpoint": p.srv.URL + "/token",
			"jwks_uri": p.srv.URL + "/jwks", "userinfo_endpoint": p.srv.URL + "/userinfo",
			"id_token_signing_alg_values_supported": []string{"ES256"}, "response_types_supported": []string{"code"},
			"subject_types_supported": []string{"public"}, "scopes_supported": []string{"openid", "profile", "email", "groups"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if id, secret, ok := r.BasicAuth(); !ok || id != p.clientID || secret != p.secret {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		if p.tokenStatus != 0 {
			writeJSON(w, p.tokenStatus, map[string]string{"error": "invalid_grant"})
			return
		}
		const accessToken = "provider-access-token"
		out := map[string]any{"access_token": accessToken, "token_type": "Bearer", "expires_in": 300}
		if p.idToken {
			h := sha256.Sum256([]byte(accessToken))
			now := time.Now()
			claims := map[string]any{
				"iss": p.srv.URL, "aud": p.clientID, "sub": hostileSubject, "nonce": p.nonce,
				"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
				"at_hash": base64.RawURLEncoding.EncodeToString(h[:16]),
			}
			if p.claims != nil {
				p.claims(claims)
			}
			out["id_token"] = signES256(t, p.signWith, claims)
		}
		writeJSON(w, 200, out)
	})
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer provider-access-token" {
			w.WriteHeader(401)
			return
		}
		writeJSON(w, 200, map[string]any{"sub": p.userSub, "email": "e@example.com", "groups": []string{"grp-ops"}})
	})
	return p
}

// reset makes every answer good for the login whose nonce is given.
func (p *hostileProvider) reset(nonce string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nonce, p.claims, p.signWith, p.idToken, p.userSub, p.tokenStatus = nonce, nil, p.key, true, hostileSubject, 0
}

func signES256(t *testing.T, key *ecdsa.PrivateKey, claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	mustNoError(t, err)
	payload, err := json.Marshal(claims)
	mustNoError(t, err)
	jws, err := signer.Sign(payload)
	mustNoError(t, err)
	s, err := jws.CompactSerialize()
	mustNoError(t, err)
	return s
}

// TestCallbackRefusesUntrustworthyProviderAnswers spoils one part of the provider's
// answer at a time: each must send the SPA access_denied (or temporarily_unavailable
// when the provider fails), never a code; the unspoiled answer gives a code.
func TestCallbackRefusesUntrustworthyProviderAnswers(t *testing.T) {
	t.Parallel()
	p := newHostileProvider(t)
	e := setup(t, options{issuer: p.srv.URL, clientID: p.clientID, secret: p.secret})
	tests := []struct {
		name  string
		spoil func(p *hostileProvider)
		want  string // SPA error, "" for a code
	}{
		{"good answer", func(*hostileProvider) {}, ""},
		{"ID token for another client", func(p *hostileProvider) { p.claims = func(c map[string]any) { c["aud"] = "someone-else" } }, "access_denied"},
		{"ID token of another issuer", func(p *hostileProvider) { p.claims = func(c map[string]any) { c["iss"] = "https://evil.example" } }, "access_denied"},
		{"expired ID token", func(p *hostileProvider) {
			p.claims = func(c map[string]any) {
				c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
			}
		}, "access_denied"},
		{"ID token signed by another key", func(p *hostileProvider) { p.signWith = p.other }, "access_denied"},
		{"no id_token", func(p *hostileProvider) { p.idToken = false }, "access_denied"},
		{"nonce of another login", func(p *hostileProvider) { p.claims = func(c map[string]any) { c["nonce"] = "other" } }, "access_denied"},
		{"at_hash of another token", func(p *hostileProvider) {
			p.claims = func(c map[string]any) { c["at_hash"] = base64.RawURLEncoding.EncodeToString(make([]byte, 16)) }
		}, "access_denied"},
		{"userinfo of another employee", func(p *hostileProvider) { p.userSub = "employee-43" }, "access_denied"},
		{"code refused by the provider", func(p *hostileProvider) { p.tokenStatus = 400 }, "access_denied"},
		{"provider failing", func(p *hostileProvider) { p.tokenStatus = 503 }, "temporarily_unavailable"},
	}
	for _, tt := range tests { // sequential: one provider, one answer at a time
		t.Run(tt.name, func(t *testing.T) {
			auth := e.startUpstream(tt.name)
			p.reset(auth.Query().Get("nonce"))
			p.mu.Lock()
			tt.spoil(p)
			p.mu.Unlock()
			resp := e.noFollow(http.MethodGet, e.callbackURL(url.Values{"code": {"provider-code"}, "state": {auth.Query().Get("state")}}))
			if tt.want != "" {
				wantSPAError(t, resp, tt.want, tt.name)
				return
			}
			if q := spaLanding(t, resp); q.Get("code") == "" || q.Get("state") != tt.name {
				t.Fatalf("good answer: SPA query %v", q)
			}
		})
	}
}
