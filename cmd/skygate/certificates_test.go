package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"maps"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/httpapi"
)

// Partners' own client certificates: issued from their CSRs where the service holds
// the client CA's key, bound from certificates signed elsewhere where it does not, and
// in both cases the only certificate the application's booking calls accept.

// certAnswer is the body of a 201 from …/certificates.
type certAnswer struct {
	Certificate      string    `json:"certificate"`
	SHA256           string    `json:"sha256"`
	ClientCertSHA256 string    `json:"client_cert_sha256"`
	Serial           string    `json:"serial"`
	Subject          string    `json:"subject"`
	NotAfter         time.Time `json:"not_after"`
	Application      struct {
		ID               string `json:"id"`
		ClientCertSHA256 string `json:"client_cert_sha256"`
	} `json:"application"`
}

// certApp is an application created through the admin API, with a token.
type certApp struct {
	id, clientID, token string
}

// newCertApp creates an account and an application allowed to book, and gets a token.
func (s *testServer) newCertApp(name string) certApp {
	s.t.Helper()
	resp, body := s.adminCall(http.MethodPost, "/accounts", `{"name":"`+name+`"}`)
	if resp.StatusCode != 201 {
		s.t.Fatalf("create account: %d %s", resp.StatusCode, body)
	}
	accID := mustJSON(s.t, body)["id"].(string)
	resp, body = s.adminCall(http.MethodPost, "/accounts/"+accID+"/applications",
		`{"name":"Partner","allowed_scopes":["catalog.fasttrack:read","booking.fasttrack:write","booking.fasttrack:read"]}`)
	if resp.StatusCode != 201 {
		s.t.Fatalf("create application: %d %s", resp.StatusCode, body)
	}
	app := mustJSON(s.t, body)
	c := credentials{AccountID: accID, ClientID: app["client_id"].(string), ClientSecret: app["client_secret"].(string)}
	return certApp{id: app["id"].(string), clientID: c.ClientID, token: s.mustToken(c, "")}
}

// certCall posts {field: value} to the application's certificates route.
func (s *testServer) certCall(appID, field, value string) (*http.Response, []byte) {
	s.t.Helper()
	body, err := json.Marshal(map[string]string{field: value})
	if err != nil {
		s.t.Fatal(err)
	}
	return s.adminCall(http.MethodPost, "/applications/"+appID+"/certificates", string(body))
}

// mustCert posts {field: value} and returns the answer, which must be a 201.
func (s *testServer) mustCert(appID, field, value string) (certAnswer, *x509.Certificate) {
	s.t.Helper()
	resp, body := s.certCall(appID, field, value)
	if resp.StatusCode != 201 {
		s.t.Fatalf("%s: %d %s", field, resp.StatusCode, body)
	}
	var a certAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		s.t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(pemBlock(s.t, []byte(a.Certificate)))
	if err != nil {
		s.t.Fatal(err)
	}
	return a, cert
}

// wantFieldError checks a 422 ValidationFailed naming field.
func wantFieldError(tb testing.TB, what string, resp *http.Response, body []byte, field, fragment string) {
	tb.Helper()
	if resp.StatusCode != 422 {
		tb.Errorf("%s: %d %.300s, want 422", what, resp.StatusCode, body)
		return
	}
	var p struct {
		Code   string `json:"code"`
		Errors []struct{ Field, Message string }
	}
	if err := json.Unmarshal(body, &p); err != nil || p.Code != "ValidationFailed" {
		tb.Errorf("%s: %v %s", what, err, body)
		return
	}
	if !slices.ContainsFunc(p.Errors, func(e struct{ Field, Message string }) bool {
		return e.Field == field && strings.Contains(e.Message, fragment)
	}) {
		tb.Errorf("%s: errors %+v, want one for %s saying %q", what, p.Errors, field, fragment)
	}
}

func newCSR(tb testing.TB, key crypto.Signer) string {
	tb.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "partner", Organization: []string{"Skygate"}}, DNSNames: []string{"localhost"},
	}, key)
	if err != nil {
		tb.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

func newECDSA(tb testing.TB, c elliptic.Curve) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func newRSA(tb testing.TB, bits int) *rsa.PrivateKey {
	tb.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// signClientCert signs a client certificate for pub with the CA key, as an operator's
// CA outside the service would; edit changes the template first.
func signClientCert(tb testing.TB, ca *x509.Certificate, caKey crypto.Signer, pub crypto.PublicKey, edit func(*x509.Certificate)) string {
	tb.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "partner signed elsewhere"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// certClient speaks to the mTLS listener with the certificate and the partner's key,
// validating answers against the contract.
func (s *testServer) certClient(certPEM string, key crypto.Signer) *http.Client {
	s.t.Helper()
	tr := s.tlsTransport(false)
	tr.TLSClientConfig.Certificates = []tls.Certificate{{Certificate: [][]byte{pemBlock(s.t, []byte(certPEM))}, PrivateKey: key}}
	return &http.Client{Transport: newValidatingTransport(s.t, tr, s.base, s.mtlsBase)}
}

// wantBookingAccess lists the application's bookings over mTLS with c: 200, or 401
// ClientCertificateRequired when !ok.
func (s *testServer) wantBookingAccess(what string, c *http.Client, token string, ok bool) {
	s.t.Helper()
	resp, body := s.do(c, http.MethodGet, s.mtlsBase+bookingPath, nil, map[string]string{"Authorization": "Bearer " + token})
	switch {
	case ok && resp.StatusCode != 200:
		s.t.Errorf("%s: %d %.300s, want 200", what, resp.StatusCode, body)
	case !ok && (resp.StatusCode != 401 || problemOf(s.t, resp, body)["code"] != "ClientCertificateRequired"):
		s.t.Errorf("%s: %d %.300s, want 401 ClientCertificateRequired", what, resp.StatusCode, body)
	}
}

// devCA loads the development PKI's CA and key from the server's data directory.
func (s *testServer) devCA() (*x509.Certificate, crypto.Signer, *x509.CertPool) {
	s.t.Helper()
	ca, key, err := devpki.LoadCA(devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki")))
	if err != nil {
		s.t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return ca, key, pool
}

// appBinding reads the application's client_cert_sha256 through the admin API.
func (s *testServer) appBinding(appID string) string {
	s.t.Helper()
	resp, body := s.adminCall(http.MethodGet, "/applications/"+appID, "")
	if resp.StatusCode != 200 {
		s.t.Fatalf("GET application: %d %s", resp.StatusCode, body)
	}
	v, _ := mustJSON(s.t, body)["client_cert_sha256"].(string)
	return v
}

func TestApplicationCertificates(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		app := s.newCertApp("Certified Travel")
		ca, caKey, caPool := s.devCA()
		s.wantBookingAccess("the development certificate before any binding", s.mtlsClient, app.token, true)
		// Once the application is bound, its tokens work with its certificate only, on
		// the catalog too: read a fast-track now, on the plain listener.
		ft := s.firstFastTrack(app.token)

		// From a P-256 CSR: the service decides the certificate.
		p256 := newECDSA(t, elliptic.P256())
		before := time.Now()
		got, cert := s.mustCert(app.id, "csr", newCSR(t, p256))
		if _, err := cert.Verify(x509.VerifyOptions{Roots: caPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("the issued certificate does not verify against the client CA for client auth: %v", err)
		}
		if cert.IsCA || !cert.BasicConstraintsValid || len(cert.DNSNames) > 0 || cert.Subject.String() != "CN="+app.clientID+",O=Skygate partner" {
			t.Errorf("issued: CA %v, SANs %v, subject %q", cert.IsCA, cert.DNSNames, cert.Subject)
		}
		if !cert.PublicKey.(*ecdsa.PublicKey).Equal(&p256.PublicKey) {
			t.Error("the certificate is not for the partner's key")
		}
		sum := sha256.Sum256(cert.Raw)
		if got.SHA256 != hex.EncodeToString(sum[:]) || got.ClientCertSHA256 != httpapi.CertThumbprint(cert) || got.Serial != cert.SerialNumber.Text(16) ||
			!got.NotAfter.Equal(cert.NotAfter) || got.Subject != cert.Subject.String() {
			t.Errorf("answer %+v does not describe the certificate", got)
		}
		if d := cert.NotAfter.Sub(before); d < 8759*time.Hour || d > 8761*time.Hour {
			t.Errorf("lifetime %v, want SKYGATE_CLIENT_CERT_TTL's default 8760h", d)
		}
		if got.Application.ID != app.id || got.Application.ClientCertSHA256 != got.ClientCertSHA256 || s.appBinding(app.id) != got.ClientCertSHA256 {
			t.Errorf("binding: answer %+v, stored %q", got.Application, s.appBinding(app.id))
		}
		// The binding applies at once: the partner's certificate books, the shared
		// development certificate no longer does.
		mine := s.certClient(got.Certificate, p256)
		s.wantBookingAccess("the issued certificate", mine, app.token, true)
		if resp, body := s.book(mine, app.token, "cert-1", bookingBody(ft, "CERT-1")); resp.StatusCode != 202 {
			t.Errorf("booking with the issued certificate: %d %s", resp.StatusCode, body)
		}
		s.wantBookingAccess("the development certificate once bound", s.mtlsClient, app.token, false)

		// An RSA 2048 CSR replaces the binding.
		rsa2048 := newRSA(t, 2048)
		gotRSA, _ := s.mustCert(app.id, "csr", newCSR(t, rsa2048))
		s.wantBookingAccess("the RSA certificate", s.certClient(gotRSA.Certificate, rsa2048), app.token, true)
		s.wantBookingAccess("the replaced P-256 certificate", mine, app.token, false)
		_, edKey, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		gotEd, _ := s.mustCert(app.id, "csr", newCSR(t, edKey))

		// Refused requests change nothing.
		broken := []byte(newCSR(t, newECDSA(t, elliptic.P256())))
		der := pemBlock(t, broken)
		der[len(der)-3] ^= 1
		garbage := newCSR(t, p256)
		for _, tc := range []struct{ name, field, value, fragment string }{
			{"RSA 1024", "csr", newCSR(t, newRSA(t, 1024)), "1024-bit RSA"},
			{"P-521", "csr", newCSR(t, newECDSA(t, elliptic.P521())), "P-521"},
			{"a broken signature", "csr", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})), "does not verify"},
			{"garbage", "csr", "not a CSR", "PEM"},
			{"trailing junk", "csr", garbage + "junk", "after the PEM block"},
			{"two requests", "csr", garbage + garbage, "more than one PEM block"},
			{"a certificate as csr", "csr", gotEd.Certificate, "CERTIFICATE"},
			{"the client CA itself", "certificate", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})), "CA certificate"},
			{"another CA's certificate", "certificate", func() string {
				other, otherKey, err := devpki.LoadCA(mustOtherPKI(t))
				if err != nil {
					t.Fatal(err)
				}
				return signClientCert(t, other, otherKey, p256.Public(), nil)
			}(), "does not chain"},
			{"an expired certificate", "certificate", signClientCert(t, ca, caKey, p256.Public(), func(c *x509.Certificate) {
				c.NotBefore, c.NotAfter = time.Now().AddDate(0, -2, 0), time.Now().AddDate(0, -1, 0)
			}), "expired"},
			{"a server certificate", "certificate", mustReadFile(t, devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki")).ServerCert), "clientAuth"},
			{"a CSR as certificate", "certificate", garbage, "CERTIFICATE REQUEST"},
		} {
			resp, body := s.certCall(app.id, tc.field, tc.value)
			wantFieldError(t, tc.name, resp, body, tc.field, tc.fragment)
		}
		for _, body := range []string{`{}`, `{"csr":""}`, `{"csr":"` + strings.ReplaceAll(garbage, "\n", `\n`) + `","certificate":"x"}`} {
			resp, b := s.adminCall(http.MethodPost, "/applications/"+app.id+"/certificates", body)
			wantFieldError(t, body, resp, b, "certificate", "exactly one")
		}
		if resp, body := s.certCall("00000000-0000-4000-8000-000000000000", "csr", newCSR(t, p256)); resp.StatusCode != 404 {
			t.Errorf("unknown application: %d %s", resp.StatusCode, body)
		}
		if s.appBinding(app.id) != gotEd.ClientCertSHA256 {
			t.Errorf("a refused request changed the binding")
		}

		// A certificate signed elsewhere (the development CA's key, as an operator's CA
		// would) is bound the same way.
		ext := newECDSA(t, elliptic.P384())
		extPEM := signClientCert(t, ca, caKey, ext.Public(), nil)
		gotExt, extCert := s.mustCert(app.id, "certificate", extPEM)
		if gotExt.Certificate != extPEM || gotExt.ClientCertSHA256 != httpapi.CertThumbprint(extCert) || s.appBinding(app.id) != gotExt.ClientCertSHA256 {
			t.Errorf("bound %+v, stored %q", gotExt, s.appBinding(app.id))
		}
		s.wantBookingAccess("the certificate signed elsewhere", s.certClient(extPEM, ext), app.token, true)
		s.wantBookingAccess("the development certificate after the external binding", s.mtlsClient, app.token, false)

		// Each success is one audit record naming the certificate; the failures left none.
		resp, body := s.adminCall(http.MethodGet, "/audit-events?target_id="+app.id+"&limit=50", "")
		if resp.StatusCode != 200 {
			t.Fatalf("audit: %d %s", resp.StatusCode, body)
		}
		var audit struct {
			Data []struct {
				Action  string `json:"action"`
				Actor   string `json:"actor"`
				Details struct {
					Serial   string    `json:"serial"`
					SHA256   string    `json:"sha256"`
					NotAfter time.Time `json:"not_after"`
				} `json:"details"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &audit); err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, a := range audit.Data {
			actions = append(actions, a.Action)
		}
		want := "application.certificate.bind,application.certificate.issue,application.certificate.issue,application.certificate.issue,application.create"
		if strings.Join(actions, ",") != want {
			t.Fatalf("audit actions %v, want %s", actions, want)
		}
		for i, a := range []certAnswer{gotExt, gotEd, gotRSA, got} {
			d := audit.Data[i].Details
			if d.Serial != a.Serial || d.SHA256 != a.SHA256 || !d.NotAfter.Equal(a.NotAfter) || audit.Data[i].Actor != "employee-1" {
				t.Errorf("audit record %d: %+v, want the certificate %s", i, audit.Data[i], a.SHA256)
			}
		}
		if strings.Contains(s.stderr.String(), "without its audit record") {
			t.Error("a certificate binding committed without taking its audit record")
		}
	})
}

// TestCertificateBindingReachesOtherReplicas: a binding made through one replica
// applies on another that has the application cached within the documented bound
// (httpapi.ApplicationCacheTTL).
func TestCertificateBindingReachesOtherReplicas(t *testing.T) {
	t.Parallel()
	env := engines[1].env(t, nil)
	a := startServer(t, env)
	b := startServer(t, maps.Clone(env))
	app := a.newCertApp("Replicated Partner")
	b.wantBookingAccess("the development certificate before the binding", b.mtlsClient, app.token, true) // b caches the application
	key := newECDSA(t, elliptic.P256())
	got, _ := a.mustCert(app.id, "csr", newCSR(t, key))
	deadline := time.Now().Add(3 * httpapi.ApplicationCacheTTL)
	for {
		resp, _ := b.do(b.mtlsClient, http.MethodGet, b.mtlsBase+bookingPath, nil, map[string]string{"Authorization": "Bearer " + app.token})
		if resp.StatusCode == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other replica still accepts the development certificate after %v: %d", 3*httpapi.ApplicationCacheTTL, resp.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.wantBookingAccess("the issued certificate on the other replica", b.certClient(got.Certificate, key), app.token, true)
}

// mustOtherPKI makes a development PKI of its own: a CA the server does not trust.
func mustOtherPKI(tb testing.TB) devpki.Files {
	tb.Helper()
	f, err := devpki.Ensure(tb.TempDir(), time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func mustReadFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// certificateHostile returns TestHostileRequests' cases for the certificates route of
// the account's (only) application, and a check that none of them bound it.
func (s *testServer) certificateHostile(t *testing.T, accountID, admin string) ([]hostileCase, func()) {
	t.Helper()
	_, body := s.adminCall(http.MethodGet, "/accounts/"+accountID+"/applications", "")
	appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)
	path := "/api/v1/admin/applications/" + appID + "/certificates"
	h := map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
	ct := func(v string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + admin, "Content-Type": v}
	}
	csr := strings.ReplaceAll(newCSR(t, newECDSA(t, elliptic.P256())), "\n", `\n`)
	keyDER, err := x509.MarshalPKCS8PrivateKey(newECDSA(t, elliptic.P256()))
	if err != nil {
		t.Fatal(err)
	}
	privateKey := strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})), "\n", `\n`)
	cases := []hostileCase{
		{name: "certificate: garbage PEM", method: "POST", path: path, header: h, body: `{"csr":"-----BEGIN CERTIFICATE REQUEST-----\n!!!!\n-----END CERTIFICATE REQUEST-----\n"}`, want: 422},
		{name: "certificate: garbage certificate", method: "POST", path: path, header: h, body: `{"certificate":"` + strings.Repeat("A", 5000) + `"}`, want: 422},
		{name: "certificate: NUL in the PEM", method: "POST", path: path, header: h, body: `{"csr":"` + strings.Replace(csr, "MII", `MII\u0000`, 1) + `"}`, want: 422},
		{name: "certificate: a private key instead of a CSR", method: "POST", path: path, header: h, body: `{"csr":"` + privateKey + `"}`, want: 422},
		{name: "certificate: a CSR of 900 KiB", method: "POST", path: path, header: h, body: `{"csr":"` + csr + strings.Repeat(" ", 900<<10) + `"}`, want: 422},
		{name: "certificate: body over 1 MiB", method: "POST", path: path, header: h, body: `{"csr":"` + strings.Repeat("A", 1<<20) + `"}`, want: 413},
		{name: "certificate: body as text/plain", method: "POST", path: path, header: ct("text/plain"), body: `{"csr":"` + csr + `"}`, want: 415},
		{name: "certificate: body as application/x-pem-file", method: "POST", path: path, header: ct("application/x-pem-file"), body: strings.ReplaceAll(csr, `\n`, "\n"), want: 415},
		{name: "certificate: unknown field", method: "POST", path: path, header: h, body: `{"csr":"` + csr + `","subject":"CN=admin"}`, want: 400},
		{name: "certificate: csr a number", method: "POST", path: path, header: h, body: `{"csr":1}`, want: 400},
		{name: "certificate: csr an array", method: "POST", path: path, header: h, body: `{"csr":["` + csr + `"]}`, want: 400},
		{name: "certificate: empty body", method: "POST", path: path, header: h, want: 400},
		{name: "certificate: both fields", method: "POST", path: path, header: h, body: `{"csr":"` + csr + `","certificate":"` + csr + `"}`, want: 422},
		{name: "certificate: application id with NUL", method: "POST", path: "/api/v1/admin/applications/a%00/certificates", header: h, body: `{"csr":"` + csr + `"}`, want: 404},
	}
	return cases, func() {
		if b := s.appBinding(appID); b != "" {
			t.Errorf("the hostile certificate requests bound the application to %s", b)
		}
	}
}
