package main

import (
	"crypto/elliptic"
	"crypto/x509"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
)

// The client CA as an operator configures it: SKYGATE_CLIENT_CA with or without its
// key (SKYGATE_CLIENT_CA_KEY), rather than the development PKI.

// TestApplicationCertificatesOperatorCA: with SKYGATE_TLS_CERT, SKYGATE_TLS_KEY and
// SKYGATE_CLIENT_CA set, the service holds no CA key unless SKYGATE_CLIENT_CA_KEY
// names it: a CSR is then refused with directions, and a certificate the operator's
// CA signed is bound.
func TestApplicationCertificatesOperatorCA(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		operatorEnv := func(withKey bool) map[string]string {
			env := e.env(t, nil)
			// The development PKI's files where the test clients find them, configured as
			// an operator's own.
			f, err := devpki.Ensure(filepath.Join(env["SKYGATE_DATA_DIR"], "pki"), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			env["SKYGATE_TLS_CERT"], env["SKYGATE_TLS_KEY"], env["SKYGATE_CLIENT_CA"] = f.ServerCert, f.ServerKey, f.CA
			if withKey {
				env["SKYGATE_CLIENT_CA_KEY"] = f.ClientCAKey
				env["SKYGATE_CLIENT_CERT_TTL"] = "720h"
			}
			return env
		}

		s := startServer(t, operatorEnv(false))
		app := s.newCertApp("Production Partner")
		key := newECDSA(t, elliptic.P256())
		resp, body := s.certCall(app.id, "csr", newCSR(t, key))
		wantFieldError(t, "a CSR without the CA key", resp, body, "csr", "send the signed certificate as certificate")
		if s.appBinding(app.id) != "" {
			t.Fatal("a refused CSR bound the application")
		}
		ca, caKey, _ := s.devCA()
		certPEM := signClientCert(t, ca, caKey, key.Public(), nil)
		got, _ := s.mustCert(app.id, "certificate", certPEM)
		if s.appBinding(app.id) != got.ClientCertSHA256 {
			t.Error("the operator's certificate is not bound")
		}
		s.wantBookingAccess("the operator's certificate", s.certClient(certPEM, key), app.token, true)
		s.wantBookingAccess("the development certificate", s.mtlsClient, app.token, false)

		// With the CA's key the same deployment signs CSRs, for SKYGATE_CLIENT_CERT_TTL.
		s2 := startServer(t, operatorEnv(true))
		app2 := s2.newCertApp("Sandbox Partner")
		got2, cert2 := s2.mustCert(app2.id, "csr", newCSR(t, key))
		if d := time.Until(cert2.NotAfter); d < 719*time.Hour || d > 720*time.Hour {
			t.Errorf("lifetime %v, want SKYGATE_CLIENT_CERT_TTL=720h", d)
		}
		s2.wantBookingAccess("a certificate from the operator's CA key", s2.certClient(got2.Certificate, key), app2.token, true)
	})
}

// TestClientAuthorityRefusesAMismatchedKey: serve does not start with a CA key that is
// not SKYGATE_CLIENT_CA's, and says which variables disagree.
func TestClientAuthorityRefusesAMismatchedKey(t *testing.T) {
	t.Parallel()
	mine, other := devpki.Paths(t.TempDir()), devpki.Paths(t.TempDir())
	for _, dir := range []string{mine.Dir, other.Dir} {
		if _, err := devpki.Ensure(dir, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	cfg := &config.Config{TLSCert: mine.ServerCert, TLSKey: mine.ServerKey, ClientCA: mine.CA, ClientCAKey: other.ClientCAKey, ClientCertTTL: time.Hour}
	if _, err := clientAuthority(cfg, pool); err == nil || !strings.Contains(err.Error(), "SKYGATE_CLIENT_CA_KEY") {
		t.Fatalf("a mismatched key: %v", err)
	}
	cfg.ClientCAKey = mine.ServerKey
	if _, err := clientAuthority(cfg, pool); err == nil {
		t.Fatal("the server's key accepted as the CA's")
	}
	cfg.ClientCAKey = mine.ClientCAKey
	a, err := clientAuthority(cfg, pool)
	if err != nil || !a.CanIssue() {
		t.Fatalf("the matching key: %v", err)
	}
}
