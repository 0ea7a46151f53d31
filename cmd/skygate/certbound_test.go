package main

import (
	"crypto/elliptic"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devpki"
)

// TestCertificateBoundTokens: the token of an application bound to a client
// certificate carries cnf.x5t#S256 (RFC 8705) and works on every route, not only
// booking, only with that certificate: over mutual TLS or, from a trusted proxy, in
// its header. Without it, or with another certificate of the client CA, 401 with an
// invalid_token challenge. Tokens without cnf work as before.
func TestCertificateBoundTokens(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, map[string]string{
			"SKYGATE_TRUSTED_PROXY_CERT_HEADER": "X-Client-Cert", "SKYGATE_TRUSTED_PROXIES": "127.0.0.1/32",
		}))
		pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
		certPEM, err := os.ReadFile(pki.ClientCert)
		if err != nil {
			t.Fatal(err)
		}
		c := s.mustBootstrap("bound", skygate.B2BScopes, "--client-cert-sha256", thumbprintOfPEM(t, certPEM))
		pkg := s.seedESIMCatalog(c.AccountID, 5)
		tok := s.mustToken(c, "")
		var claims struct {
			Cnf map[string]string `json:"cnf"`
		}
		payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
		if json.Unmarshal(payload, &claims) != nil || claims.Cnf["x5t#S256"] != thumbprintOfPEM(t, certPEM) {
			t.Fatalf("token payload %s: want cnf.x5t#S256 of the bound certificate", payload)
		}

		// Another certificate that chains to the client CA.
		ca, caKey, err := devpki.LoadCA(pki)
		if err != nil {
			t.Fatal(err)
		}
		otherCert, otherKey, err := devpki.NewClientCert(ca, caKey, time.Now(), "another partner")
		if err != nil {
			t.Fatal(err)
		}
		tr := s.tlsTransport(false)
		tr.TLSClientConfig.Certificates = []tls.Certificate{{Certificate: [][]byte{otherCert.Raw}, PrivateKey: otherKey}}
		otherClient := &http.Client{Transport: newValidatingTransport(t, tr, s.base, s.mtlsBase)}

		var key int
		routes := []struct {
			name, method, path, body string
			ok                       int
		}{
			{"catalog", http.MethodGet, "/v2/catalog/lounges?limit=1", "", http.StatusOK},
			{"eSIM order", http.MethodPost, "/v2/b2b/esim/orders", `{"package_id":"` + pkg + `","quantity":1}`, http.StatusCreated},
			{"webhooks", http.MethodGet, "/api/v1/b2b/webhooks", "", http.StatusOK},
			{"booking", http.MethodGet, bookingPath, "", http.StatusOK},
		}
		call := func(client *http.Client, base, method, path, body, tok string, extra map[string]string) (*http.Response, []byte) {
			key++
			h := map[string]string{"Authorization": "Bearer " + tok, "Idempotency-Key": "bound-" + strconv.Itoa(key)}
			for k, v := range extra {
				h[k] = v
			}
			if body == "" {
				return s.do(client, method, base+path, nil, h)
			}
			h["Content-Type"] = "application/json"
			return s.do(client, method, base+path, strings.NewReader(body), h)
		}
		forwarded := func(pem []byte) map[string]string {
			return map[string]string{"X-Client-Cert": url.QueryEscape(string(pem))}
		}
		otherPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: otherCert.Raw})
		for _, rt := range routes {
			for _, refused := range []struct {
				name   string
				client *http.Client
				base   string
				header map[string]string
				desc   string
			}{
				{"plain listener", s.client, s.base, nil, "bound to a client certificate"},
				{"mutual TLS without a certificate", s.noCertClient, s.mtlsBase, nil, "bound to a client certificate"},
				{"mutual TLS with another certificate of the client CA", otherClient, s.mtlsBase, nil, "another client certificate"},
				{"another certificate from the trusted proxy", s.client, s.base, forwarded(otherPEM), "another client certificate"},
			} {
				resp, body := call(refused.client, refused.base, rt.method, rt.path, rt.body, tok, refused.header)
				challenge := resp.Header.Get("WWW-Authenticate")
				if p := problemOf(t, resp, body); resp.StatusCode != http.StatusUnauthorized || p["code"] != "ClientCertificateRequired" ||
					!strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, refused.desc) {
					t.Errorf("%s, %s: %d %v, WWW-Authenticate %q", rt.name, refused.name, resp.StatusCode, p, challenge)
				}
			}
			if resp, body := call(s.mtlsClient, s.mtlsBase, rt.method, rt.path, rt.body, tok, nil); resp.StatusCode != rt.ok {
				t.Errorf("%s with the bound certificate: %d %s", rt.name, resp.StatusCode, body)
			}
			if resp, body := call(s.client, s.base, rt.method, rt.path, rt.body, tok, forwarded(certPEM)); resp.StatusCode != rt.ok {
				t.Errorf("%s with the bound certificate from the trusted proxy: %d %s", rt.name, resp.StatusCode, body)
			}
		}

		// An application without a binding: its token has no cnf and needs no certificate.
		unbound := s.mustToken(s.mustBootstrap("unbound", catalogScopes), "")
		if resp, body := s.get("/v2/catalog/lounges?limit=1", unbound, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("an unbound token on the plain listener: %d %s", resp.StatusCode, body)
		}
	})
}

// TestCertificateBindingAppliesToEarlierTokens: binding an application to a client
// certificate, or to another one, applies to the tokens it issued before, which carry
// no cnf or the old one: on every route they then work only with the certificate the
// application is bound to now, like its new tokens.
func TestCertificateBindingAppliesToEarlierTokens(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		app := s.newCertApp("rebound")
		catalog := func(c *http.Client, base, tok string) int {
			resp, _ := s.do(c, http.MethodGet, base+"/v2/catalog/fast-tracks?limit=1", nil, map[string]string{"Authorization": "Bearer " + tok})
			return resp.StatusCode
		}
		unbound := app.token // issued before any binding: no cnf
		if st := catalog(s.client, s.base, unbound); st != http.StatusOK {
			t.Fatalf("before the binding: %d", st)
		}

		// Bind the development client certificate (s.mtlsClient presents it).
		pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
		devPEM, err := os.ReadFile(pki.ClientCert)
		if err != nil {
			t.Fatal(err)
		}
		s.mustCert(app.id, "certificate", string(devPEM))
		if st := catalog(s.client, s.base, unbound); st != http.StatusUnauthorized {
			t.Errorf("a token from before the binding on the plain listener: %d, want 401", st)
		}
		if st := catalog(s.mtlsClient, s.mtlsBase, unbound); st != http.StatusOK {
			t.Errorf("a token from before the binding with the bound certificate: %d, want 200", st)
		}

		// Bind another certificate: the tokens bound to the first one stop working with it.
		creds := s.rotatedCredentials(app)
		bound := s.mustToken(creds, "") // cnf: the development certificate
		ca, caKey, _ := s.devCA()
		key := newECDSA(t, elliptic.P256())
		otherPEM := signClientCert(t, ca, caKey, &key.PublicKey, nil)
		s.mustCert(app.id, "certificate", otherPEM)
		other := s.certClient(otherPEM, key)
		for name, tok := range map[string]string{"without cnf": unbound, "with the old cnf": bound} {
			if st := catalog(s.mtlsClient, s.mtlsBase, tok); st != http.StatusUnauthorized {
				t.Errorf("a token %s, with the previously bound certificate: %d, want 401", name, st)
			}
		}
		if st := catalog(other, s.mtlsBase, bound); st != http.StatusUnauthorized {
			t.Errorf("a token with the old cnf, with the newly bound certificate: %d, want 401", st)
		}
		if st := catalog(other, s.mtlsBase, unbound); st != http.StatusOK {
			t.Errorf("a token without cnf, with the newly bound certificate: %d, want 200", st)
		}
		if st := catalog(other, s.mtlsBase, s.mustToken(creds, "")); st != http.StatusOK {
			t.Errorf("a new token with the newly bound certificate: %d, want 200", st)
		}
	})
}

// rotatedCredentials gives the application a new secret (its tokens stay valid) and
// returns its credentials.
func (s *testServer) rotatedCredentials(app certApp) credentials {
	s.t.Helper()
	resp, body := s.adminCall(http.MethodPost, "/applications/"+app.id+"/rotate-secret", "")
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("rotate: %d %s", resp.StatusCode, body)
	}
	m := mustJSON(s.t, body)
	return credentials{AccountID: m["account_id"].(string), ClientID: app.clientID, ClientSecret: m["client_secret"].(string)}
}
