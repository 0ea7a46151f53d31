package clientca_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/clientca"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const ttl = 8760 * time.Hour

// testCA is a CA with its key and the authority over it.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
	pool *x509.CertPool
	auth *clientca.Authority
}

// newCA makes a self-signed ECDSA P-256 CA valid for ten years around now.
func newCA(tb testing.TB, name string) *testCA {
	tb.Helper()
	key := mustECDSA(tb, elliptic.P256())
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.AddDate(9, 0, 0),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign, BasicConstraintsValid: true, IsCA: true,
	}
	cert := mustCert(tb, tmpl, tmpl, key.Public(), key)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	auth, err := clientca.New(clientca.Config{Roots: pool, CA: cert, Key: key, TTL: ttl})
	if err != nil {
		tb.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pool: pool, auth: auth}
}

// sign makes a certificate for pub signed by ca; edit changes the client-certificate
// template first.
func (ca *testCA) sign(tb testing.TB, pub crypto.PublicKey, edit func(*x509.Certificate)) *x509.Certificate {
	tb.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: "partner"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	if edit != nil {
		edit(tmpl)
	}
	return mustCert(tb, tmpl, ca.cert, pub, ca.key)
}

func mustCert(tb testing.TB, tmpl, parent *x509.Certificate, pub crypto.PublicKey, key crypto.Signer) *x509.Certificate {
	tb.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return cert
}

func mustECDSA(tb testing.TB, c elliptic.Curve) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func mustRSA(tb testing.TB, bits int) *rsa.PrivateKey {
	tb.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func mustEd25519(tb testing.TB) ed25519.PrivateKey {
	tb.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// csrPEM is a request for key that asks for everything a partner should not get: its
// own subject, SANs, and a CA basic constraint.
func csrPEM(tb testing.TB, key crypto.Signer) []byte {
	tb.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: csrDER(tb, key)})
}

func csrDER(tb testing.TB, key crypto.Signer) []byte {
	tb.Helper()
	caTrue, err := asn1.Marshal(struct{ IsCA bool }{true})
	if err != nil {
		tb.Fatal(err)
	}
	evil, _ := url.Parse("spiffe://evil/admin")
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:        pkix.Name{CommonName: "skygate-admin", Organization: []string{"Skygate"}},
		DNSNames:       []string{"localhost", "evil.example"},
		EmailAddresses: []string{"root@evil.example"},
		IPAddresses:    []net.IP{net.IPv4(127, 0, 0, 1)},
		URIs:           []*url.URL{evil},
		ExtraExtensions: []pkix.Extension{
			{Id: asn1.ObjectIdentifier{2, 5, 29, 19}, Critical: true, Value: caTrue},
		},
	}, key)
	if err != nil {
		tb.Fatal(err)
	}
	return der
}

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func wantInputError(tb testing.TB, err error, fragment string) {
	tb.Helper()
	var ie *clientca.InputError
	if !errors.As(err, &ie) {
		tb.Fatalf("error %v (%T), want an *InputError", err, err)
	}
	if !strings.Contains(ie.Message, fragment) {
		tb.Fatalf("message %q lacks %q", ie.Message, fragment)
	}
}

func TestIssueDecidesTheCertificate(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	for _, tc := range []struct {
		name string
		key  crypto.Signer
	}{
		{"ECDSA P-256", mustECDSA(t, elliptic.P256())},
		{"ECDSA P-384", mustECDSA(t, elliptic.P384())},
		{"RSA 2048", mustRSA(t, 2048)},
		{"Ed25519", mustEd25519(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cert, err := ca.auth.Issue(csrPEM(t, tc.key), "skg_client", now)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("does not verify for client auth: %v", err)
			}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
				t.Error("verifies for server auth")
			}
			if !cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(tc.key.Public()) {
				t.Error("the certificate's key is not the request's")
			}
			if got := cert.Subject.String(); got != "CN=skg_client,O=Skygate partner" {
				t.Errorf("subject %q", got)
			}
			if len(cert.DNSNames)+len(cert.EmailAddresses)+len(cert.IPAddresses)+len(cert.URIs) > 0 {
				t.Errorf("SANs copied from the request: %v %v %v %v", cert.DNSNames, cert.EmailAddresses, cert.IPAddresses, cert.URIs)
			}
			if cert.IsCA || !cert.BasicConstraintsValid {
				t.Errorf("IsCA %v, basic constraints present %v", cert.IsCA, cert.BasicConstraintsValid)
			}
			if cert.KeyUsage != x509.KeyUsageDigitalSignature || len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth || len(cert.UnknownExtKeyUsage) > 0 {
				t.Errorf("key usage %v, extended %v %v", cert.KeyUsage, cert.ExtKeyUsage, cert.UnknownExtKeyUsage)
			}
			for _, ext := range cert.Extensions {
				switch ext.Id.String() {
				case "2.5.29.15", "2.5.29.37", "2.5.29.19", "2.5.29.35": // key usage, EKU, basic constraints, authority key id
				default:
					t.Errorf("extension %s that the service did not decide", ext.Id)
				}
			}
			if !cert.NotBefore.Equal(now.Add(-clientca.ClockSkew)) || !cert.NotAfter.Equal(now.Add(ttl)) {
				t.Errorf("valid %s – %s", cert.NotBefore, cert.NotAfter)
			}
			if cert.SerialNumber.Sign() <= 0 || cert.SerialNumber.BitLen() < 128 {
				t.Errorf("serial %x", cert.SerialNumber)
			}
			if !bytes.Equal(cert.RawIssuer, ca.cert.RawSubject) {
				t.Error("issuer is not the CA")
			}
		})
	}
}

func TestIssueSerialsDiffer(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	req := csrPEM(t, mustECDSA(t, elliptic.P256()))
	seen := map[string]bool{}
	for range 20 {
		cert, err := ca.auth.Issue(req, "skg_client", now)
		if err != nil {
			t.Fatal(err)
		}
		if seen[cert.SerialNumber.String()] {
			t.Fatalf("serial %x issued twice", cert.SerialNumber)
		}
		seen[cert.SerialNumber.String()] = true
	}
}

func TestIssueStopsAtTheCANotAfter(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	late := ca.cert.NotAfter.Add(-24 * time.Hour)
	cert, err := ca.auth.Issue(csrPEM(t, mustECDSA(t, elliptic.P256())), "skg_client", late)
	if err != nil {
		t.Fatal(err)
	}
	if !cert.NotAfter.Equal(ca.cert.NotAfter) {
		t.Errorf("NotAfter %s, want the CA's %s", cert.NotAfter, ca.cert.NotAfter)
	}
	if _, err := ca.auth.Issue(csrPEM(t, mustECDSA(t, elliptic.P256())), "skg_client", ca.cert.NotAfter.Add(time.Hour)); err == nil {
		t.Error("issued under an expired CA")
	}
	// Validity never starts before the CA's.
	cert, err = ca.auth.Issue(csrPEM(t, mustECDSA(t, elliptic.P256())), "skg_client", ca.cert.NotBefore)
	if err != nil {
		t.Fatal(err)
	}
	if !cert.NotBefore.Equal(ca.cert.NotBefore) {
		t.Errorf("NotBefore %s before the CA's %s", cert.NotBefore, ca.cert.NotBefore)
	}
}

func TestIssueRefuses(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	good := csrPEM(t, mustECDSA(t, elliptic.P256()))
	broken := csrDER(t, mustECDSA(t, elliptic.P256()))
	broken[len(broken)-3] ^= 0x01 // inside the signature
	sha1Signed, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "x"}, SignatureAlgorithm: x509.SHA1WithRSA,
	}, mustRSA(t, 2048))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fragment string
		pem            []byte
	}{
		{"RSA 1024", "1024-bit RSA", csrPEM(t, mustRSA(t, 1024))},
		{"ECDSA P-224", "P-224", csrPEM(t, mustECDSA(t, elliptic.P224()))},
		{"ECDSA P-521", "P-521", csrPEM(t, mustECDSA(t, elliptic.P521()))},
		{"broken signature", "does not verify", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: broken})},
		{"SHA-1 signature", "does not verify", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: sha1Signed})},
		{"not PKCS#10", "not a valid PKCS#10", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte("garbage")})},
		{"empty", "one PEM block", nil},
		{"garbage", "one PEM block", []byte("hello")},
		{"broken base64", "not valid PEM", []byte("-----BEGIN CERTIFICATE REQUEST-----\n%%%%\n-----END CERTIFICATE REQUEST-----\n")},
		{"text before", "nothing before", append([]byte("Subject: me\n"), good...)},
		{"junk after", "data after", append(append([]byte{}, good...), "junk"...)},
		{"two blocks", "more than one PEM block", append(append([]byte{}, good...), good...)},
		{"a certificate", `"CERTIFICATE"`, certPEM(ca.cert)},
		{"PEM headers", "headers", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: csrDER(t, mustECDSA(t, elliptic.P256()))})},
		{"too large", "larger than 64 KiB", append(append([]byte{}, good...), bytes.Repeat([]byte(" "), clientca.MaxPEM)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ca.auth.Issue(tc.pem, "skg_client", now)
			wantInputError(t, err, tc.fragment)
		})
	}
}

func TestWithoutTheKeyOnlyCheckWorks(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	external, err := clientca.New(clientca.Config{Roots: ca.pool, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	if external.CanIssue() || !ca.auth.CanIssue() {
		t.Fatalf("CanIssue: external %v, with key %v", external.CanIssue(), ca.auth.CanIssue())
	}
	if _, err := external.Issue(csrPEM(t, mustECDSA(t, elliptic.P256())), "skg_client", now); !errors.Is(err, clientca.ErrNoKey) {
		t.Fatalf("Issue without the key: %v", err)
	}
	leaf := ca.sign(t, mustECDSA(t, elliptic.P256()).Public(), nil)
	if got, err := external.Check(certPEM(leaf), now); err != nil || !got.Equal(leaf) {
		t.Fatalf("Check: %v", err)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	other := newCA(t, "Someone else's CA")
	pub := mustECDSA(t, elliptic.P256()).Public()
	good := ca.sign(t, pub, nil)
	if got, err := ca.auth.Check(certPEM(good), now); err != nil || !got.Equal(good) {
		t.Fatalf("a good certificate: %v", err)
	}
	issued, err := ca.auth.Issue(csrPEM(t, mustEd25519(t)), "skg_client", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.auth.Check(certPEM(issued), now); err != nil {
		t.Fatalf("a certificate the authority issued: %v", err)
	}

	for _, tc := range []struct {
		name, fragment string
		pem            []byte
	}{
		{"the CA itself", "CA certificate", certPEM(ca.cert)},
		{"an intermediate CA", "CA certificate", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.IsCA, c.KeyUsage = true, x509.KeyUsageCertSign
		}))},
		{"keyCertSign without CA", "CA certificate", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.KeyUsage |= x509.KeyUsageCertSign
		}))},
		{"another CA's", "does not chain", certPEM(other.sign(t, pub, nil))},
		{"self-signed leaf", "does not chain", certPEM(func() *x509.Certificate {
			k := mustECDSA(t, elliptic.P256())
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
				ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
			return mustCert(t, tmpl, tmpl, k.Public(), k)
		}())},
		{"expired", "expired at", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.NotBefore, c.NotAfter = now.AddDate(0, -2, 0), now.AddDate(0, -1, 0)
		}))},
		{"not yet valid", "not valid before", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.NotBefore = now.Add(time.Hour)
		}))},
		{"server auth only", "clientAuth", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		}))},
		{"no extended key usage", "clientAuth", certPEM(ca.sign(t, pub, func(c *x509.Certificate) { c.ExtKeyUsage = nil }))},
		{"any extended key usage", "clientAuth", certPEM(ca.sign(t, pub, func(c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageAny}
		}))},
		{"RSA 1024", "1024-bit RSA", certPEM(ca.sign(t, mustRSA(t, 1024).Public(), nil))},
		{"a chain", "more than one PEM block", append(certPEM(good), certPEM(ca.cert)...)},
		{"a CSR", `"CERTIFICATE REQUEST"`, csrPEM(t, mustECDSA(t, elliptic.P256()))},
		{"not X.509", "not a valid X.509", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{0x30, 0x03, 0x02, 0x01, 0x01}})},
		{"garbage", "one PEM block", []byte("\x00\x01")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ca.auth.Check(tc.pem, now)
			wantInputError(t, err, tc.fragment)
		})
	}
}

func TestNewRefusesABadCA(t *testing.T) {
	t.Parallel()
	ca := newCA(t, "Partner CA")
	leafKey := mustECDSA(t, elliptic.P256())
	leaf := ca.sign(t, leafKey.Public(), nil)
	for _, tc := range []struct {
		name string
		c    clientca.Config
	}{
		{"no pool", clientca.Config{CA: ca.cert, Key: ca.key, TTL: ttl}},
		{"no lifetime", clientca.Config{Roots: ca.pool, CA: ca.cert, Key: ca.key}},
		{"a certificate without its key", clientca.Config{Roots: ca.pool, CA: ca.cert, TTL: ttl}},
		{"a key without its certificate", clientca.Config{Roots: ca.pool, Key: ca.key, TTL: ttl}},
		{"the key of another certificate", clientca.Config{Roots: ca.pool, CA: ca.cert, Key: leafKey, TTL: ttl}},
		{"a leaf as the CA", clientca.Config{Roots: ca.pool, CA: leaf, Key: leafKey, TTL: ttl}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := clientca.New(tc.c); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestParsePrivateKeyAndCAFor(t *testing.T) {
	t.Parallel()
	ec := mustECDSA(t, elliptic.P384())
	rk := mustRSA(t, 2048)
	ed := mustEd25519(t)
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pem  []byte
		want crypto.Signer
	}{
		{"PKCS#8 ECDSA", pkcs8(ec), ec},
		{"SEC 1 ECDSA", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), ec},
		{"PKCS#1 RSA", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}), rk},
		{"PKCS#8 Ed25519", pkcs8(ed), ed},
	} {
		got, err := clientca.ParsePrivateKey(tc.pem)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !got.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(tc.want.Public()) {
			t.Errorf("%s: another key", tc.name)
		}
	}
	for name, bad := range map[string][]byte{
		"garbage":     []byte("key"),
		"certificate": certPEM(newCA(t, "x").cert),
		"encrypted":   pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: sec1}),
		"not a key":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("nope")}),
	} {
		if _, err := clientca.ParsePrivateKey(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	first, second := newCA(t, "first"), newCA(t, "second")
	bundle := append(append(certPEM(first.cert), "\n# comment\n"...), certPEM(second.cert)...)
	if got, err := clientca.CAFor(bundle, second.key); err != nil || !got.Equal(second.cert) {
		t.Fatalf("CAFor the second: %v", err)
	}
	if _, err := clientca.CAFor(bundle, ec); err == nil {
		t.Fatal("CAFor a key of no certificate of the bundle")
	}
}
