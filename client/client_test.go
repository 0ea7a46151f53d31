package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate/client/api"
)

// fakeSkygate is a token endpoint and catalog on a plain listener and a booking route
// on a listener that requires a client certificate.
type fakeSkygate struct {
	plain, mtls *httptest.Server
	tokens      atomic.Int32 // token requests
	pki         string       // ca.pem, client.pem, client-key.pem for mtls
}

func newFakeSkygate(t *testing.T) *fakeSkygate {
	t.Helper()
	f := &fakeSkygate{pki: t.TempDir()}
	bearer := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Authorization") != "Bearer tok-1" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return false
		}
		return true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/v2/token", func(w http.ResponseWriter, r *http.Request) {
		f.tokens.Add(1)
		id, secret, _ := r.BasicAuth()
		if id != "skg_id" || secret != "sks_secret" || r.FormValue("grant_type") != "client_credentials" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"tok-1","token_type":"Bearer","expires_in":3600}`))
	})
	mux.HandleFunc("GET /v2/catalog/fast-tracks", func(w http.ResponseWriter, r *http.Request) {
		if !bearer(w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[],"pagination":{"count":0,"offset":0,"total":0}}`))
	})
	f.plain = httptest.NewServer(mux)
	t.Cleanup(f.plain.Close)

	clientCert := writeClientCert(t, f.pki)
	f.mtls = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bearer(w, r) {
			return
		}
		if r.URL.Path != "/v2/b2b/booking/fast-tracks/b1" || len(r.TLS.PeerCertificates) == 0 {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	pool := x509.NewCertPool()
	pool.AddCert(clientCert)
	f.mtls.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	f.mtls.StartTLS()
	t.Cleanup(f.mtls.Close)
	// The listener's certificate is self-signed: it is its own CA.
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.mtls.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(f.pki, CAFile), caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// writeClientCert writes a self-signed client certificate and its key into dir.
func writeClientCert(t *testing.T, dir string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "partner"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		ClientCertFile: {Type: "CERTIFICATE", Bytes: der},
		ClientKeyFile:  {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestNew: both listeners get the bearer token, fetched once with the client's
// credentials; the mutual-TLS one also the client certificate of the PKI directory.
func TestNew(t *testing.T) {
	t.Parallel()
	f := newFakeSkygate(t)
	c, err := New(Config{
		BaseURL: f.plain.URL + "/", MTLSURL: f.mtls.URL,
		ClientID: "skg_id", ClientSecret: "sks_secret", PKIDir: f.pki,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	iata := "TAS"
	list, err := c.API.ListFastTracksWithResponse(ctx, &api.ListFastTracksParams{Iata: &iata})
	if err != nil {
		t.Fatal(err)
	}
	if list.JSON200 == nil {
		t.Fatalf("catalog: %d %s", list.StatusCode(), list.Body)
	}
	booking, err := c.MTLS.GetFastTrackBookingWithResponse(ctx, "b1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if booking.StatusCode() != http.StatusNoContent {
		t.Fatalf("booking over mutual TLS: %d %s", booking.StatusCode(), booking.Body)
	}
	if n := f.tokens.Load(); n != 1 {
		t.Errorf("%d token requests, want 1 shared by both listeners", n)
	}
}

// TestNewRefuses: what New refuses before any request.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	f := newFakeSkygate(t)
	ok := Config{BaseURL: f.plain.URL, MTLSURL: f.mtls.URL, ClientID: "skg_id", ClientSecret: "sks_secret", PKIDir: f.pki}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "required"},
		{"no secret", func(c *Config) { c.ClientSecret = "" }, "required"},
		{"mTLS without PKI", func(c *Config) { c.PKIDir = "" }, "PKIDir or TLSConfig"},
		{"missing PKI files", func(c *Config) { c.PKIDir = t.TempDir() }, CAFile},
		{"foreign transport", func(c *Config) { c.HTTPClient = &http.Client{Transport: roundTripper(nil)} }, "not an *http.Transport"},
	}
	for _, tt := range tests {
		cfg := ok
		tt.edit(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %q", tt.name, err, tt.want)
		}
	}
	cfg := ok
	cfg.MTLSURL = ""
	cfg.PKIDir = ""
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("without MTLSURL: %v", err)
	}
	if c.API == nil || c.MTLS != nil {
		t.Errorf("without MTLSURL: API %v, MTLS %v; want only API", c.API, c.MTLS)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
