package devpki_test

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/devpki"
)

func TestEnsureCreatesChainOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	f, err := devpki.Ensure(dir, now)
	if err != nil || !f.GeneratedNow {
		t.Fatalf("Ensure: %v generated=%v", err, f.GeneratedNow)
	}
	before, _ := os.ReadFile(f.ServerCert)
	again, err := devpki.Ensure(dir, now)
	if err != nil || again.GeneratedNow {
		t.Fatalf("second Ensure regenerated: %v", err)
	}
	after, _ := os.ReadFile(f.ServerCert)
	if string(before) != string(after) {
		t.Fatal("server certificate was overwritten")
	}

	caPEM, _ := os.ReadFile(f.CA)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("bad CA PEM")
	}
	for _, tc := range []struct {
		cert, key string
		usage     x509.ExtKeyUsage
		host      string
	}{
		{f.ServerCert, f.ServerKey, x509.ExtKeyUsageServerAuth, "127.0.0.1"},
		{f.ServerCert, f.ServerKey, x509.ExtKeyUsageServerAuth, "localhost"},
		{f.ClientCert, f.ClientKey, x509.ExtKeyUsageClientAuth, ""},
	} {
		pair, err := tls.LoadX509KeyPair(tc.cert, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: tc.host, KeyUsages: []x509.ExtKeyUsage{tc.usage}, CurrentTime: now})
		if err != nil {
			t.Errorf("%s for %q: %v", tc.cert, tc.host, err)
		}
	}
	if _, _, err := devpki.LoadCA(f); err != nil {
		t.Errorf("LoadCA: %v", err)
	}
}
