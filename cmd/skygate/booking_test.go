package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/oauth"
)

var bookingScopes = []string{skygate.ScopeCatalogFastTrackRead, skygate.ScopeBookingWrite, skygate.ScopeBookingRead}

// bookingBody is a create request that satisfies every required_booking_info.
func bookingBody(fastTrackID, ref string) string {
	date := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	return fmt.Sprintf(`{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure"},
		"passengers":[{"first_name":"Aziza","last_name":"Karimova","date_of_birth":"1990-04-01","passport_number":"FA1234567",
		"nationality":"UZ","email":"aziza@example.com","phone":"+998901234567"}],"partner_reference":%q}`, fastTrackID, date, ref)
}

// firstFastTrack returns the id of an active fast-track of the catalog.
func (s *testServer) firstFastTrack(tok string) string {
	s.t.Helper()
	_, body := s.get("/v2/catalog/fast-tracks?iata=TAS&limit=1", tok, nil)
	p := mustPage(s.t, body)
	if len(p.Data) == 0 {
		s.t.Fatal("no fast-track at TAS")
	}
	return p.Data[0].ID
}

// book sends a create request on the mTLS listener.
func (s *testServer) book(c *http.Client, tok, key, body string) (*http.Response, []byte) {
	s.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return s.do(c, http.MethodPost, s.mtlsBase+bookingPath, strings.NewReader(body), h)
}

const bookingPath = "/v2/b2b/booking/fast-tracks"

func (s *testServer) bookingCall(method, path, tok string) (*http.Response, []byte) {
	s.t.Helper()
	return s.do(s.mtlsClient, method, s.mtlsBase+path, nil, map[string]string{"Authorization": "Bearer " + tok})
}

// mustBook creates a booking of the fast-track ft under key over mTLS and returns it.
func (s *testServer) mustBook(tok, key, ft, ref string) bookingJSON {
	s.t.Helper()
	resp, body := s.book(s.mtlsClient, tok, key, bookingBody(ft, ref))
	if resp.StatusCode != http.StatusAccepted {
		s.t.Fatalf("book %s: %d %s", key, resp.StatusCode, body)
	}
	return mustBooking(s.t, body)
}

type bookingJSON struct {
	ID            string                    `json:"id"`
	Status        string                    `json:"status"`
	ConfirmBefore *string                   `json:"confirm_before"`
	History       []struct{ Status string } `json:"status_history"`
}

func mustBooking(tb testing.TB, body []byte) bookingJSON {
	tb.Helper()
	var b bookingJSON
	if err := json.Unmarshal(body, &b); err != nil || b.ID == "" {
		tb.Fatalf("booking %v: %.300s", err, body)
	}
	return b
}

// waitStatus polls the booking until it has the status.
func (s *testServer) waitStatus(tok, id, status string) bookingJSON {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, body := s.bookingCall(http.MethodGet, bookingPath+"/"+id, tok)
		if resp.StatusCode != 200 {
			s.t.Fatalf("GET booking: %d %s", resp.StatusCode, body)
		}
		if b := mustBooking(s.t, body); b.Status == status {
			return b
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("booking %s never became %s: %s", id, status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBookingLifecycle(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", bookingScopes)
		tok := s.mustToken(c, "")
		ft := s.firstFastTrack(tok)
		body := bookingBody(ft, "PNR-1")

		resp, created := s.book(s.mtlsClient, tok, "key-1", body)
		if resp.StatusCode != 202 || resp.Header.Get("Idempotency-Status") != "created" {
			t.Fatalf("create: %d %q %s", resp.StatusCode, resp.Header.Get("Idempotency-Status"), created)
		}
		b := mustBooking(t, created)
		if resp.Header.Get("Location") != bookingPath+"/"+b.ID || b.Status != "Pending" {
			t.Errorf("Location %q status %s", resp.Header.Get("Location"), b.Status)
		}
		// Same key, same body (other layout): the stored answer.
		resp, replay := s.book(s.mtlsClient, tok, "key-1", strings.ReplaceAll(body, "\n\t\t", " "))
		if resp.StatusCode != 202 || resp.Header.Get("Idempotency-Status") != "reused" || !bytes.Equal(replay, created) {
			t.Errorf("replay: %d %q", resp.StatusCode, resp.Header.Get("Idempotency-Status"))
		}
		// Same key, other body.
		resp, pb := s.book(s.mtlsClient, tok, "key-1", bookingBody(ft, "PNR-2"))
		if p := problemOf(t, resp, pb); resp.StatusCode != 409 || p["code"] != "IdempotencyConflict" {
			t.Errorf("conflict: %d %v", resp.StatusCode, p)
		}
		// Same key, a body that would be refused (an unknown field, a wrong type): the
		// known key decides before the body is judged.
		for _, refused := range []string{`{"unknown":1}`, `{"fast_track_id":7}`, `[]`} {
			resp, pb := s.book(s.mtlsClient, tok, "key-1", refused)
			if p := problemOf(t, resp, pb); resp.StatusCode != 409 || p["code"] != "IdempotencyConflict" {
				t.Errorf("conflict with %s: %d %v", refused, resp.StatusCode, p)
			}
		}
		// Missing key, bad JSON, validation.
		for _, tc := range []struct {
			key, body string
			status    int
			code      string
		}{
			{"", body, 400, "BadRequest"},
			{strings.Repeat("k", 256), body, 400, "BadRequest"},
			{"key-2", `{"fast_track_id":`, 400, "BadRequest"},
			{"key-3", `{"fast_track_id":"` + ft + `","surprise":1}`, 400, "BadRequest"},
			{"key-4", `{"fast_track_id":"` + ft + `","service_date":"2001-01-01","flight":{"direction":"sideways"},"passengers":[]}`, 422, "ValidationFailed"},
		} {
			resp, pb := s.book(s.mtlsClient, tok, tc.key, tc.body)
			if p := problemOf(t, resp, pb); resp.StatusCode != tc.status || p["code"] != tc.code {
				t.Errorf("create %q: %d %v", tc.key, resp.StatusCode, p)
			}
		}
		// Every seed fast-track asks for notice (policy.booking_before_hours), so the
		// day that has begun at the hub cannot be booked any more.
		today := strings.Replace(bookingBody(ft, "today"), time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly),
			time.Now().In(time.FixedZone("UTC+5", 5*3600)).Format(time.DateOnly), 1)
		resp, pb = s.book(s.mtlsClient, tok, "key-today", today)
		if p := problemOf(t, resp, pb); resp.StatusCode != 422 || !strings.Contains(string(pb), "the earliest service date now is") {
			t.Errorf("create for today at the hub: %d %v", resp.StatusCode, p)
		}

		// The pass is not ready before the worker issues the booking.
		issued := s.waitStatus(tok, b.ID, "Issued")
		if issued.ConfirmBefore == nil {
			t.Error("Issued without confirm_before")
		}
		resp, pass := s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+bookingPath+"/"+b.ID+"/pass", nil, map[string]string{"Authorization": "Bearer " + tok, "Accept-Language": "ru"})
		if resp.StatusCode != 200 || !strings.Contains(string(pass), `"status":"Active"`) || !strings.Contains(string(pass), "Фаст-трек") {
			t.Errorf("pass: %d %.300s", resp.StatusCode, pass)
		}
		resp, png := s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+bookingPath+"/"+b.ID+"/pass", nil, map[string]string{"Authorization": "Bearer " + tok, "Accept": "image/png"})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("pass PNG: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		resp, _ = s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+bookingPath+"/"+b.ID+"/pass", nil, map[string]string{"Authorization": "Bearer " + tok, "Accept": "text/html"})
		if resp.StatusCode != 406 {
			t.Errorf("pass as HTML: %d", resp.StatusCode)
		}

		// Confirm once; twice is 409.
		if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+b.ID+"/confirm", tok); resp.StatusCode != 200 || mustBooking(t, body).Status != "Confirmed" {
			t.Fatalf("confirm: %d %s", resp.StatusCode, body)
		}
		resp, body2 := s.bookingCall(http.MethodPost, bookingPath+"/"+b.ID+"/confirm", tok)
		if p := problemOf(t, resp, body2); resp.StatusCode != 409 || p["code"] != "InvalidBookingStatus" || !strings.Contains(p["detail"].(string), "Confirmed") || p["booking_status"] != "Confirmed" {
			t.Errorf("second confirm: %d %v", resp.StatusCode, p)
		}

		// An employee records the use of the pass.
		admin := s.adminToken()
		resp, body3 := s.do(s.client, http.MethodPost, s.base+"/api/v1/admin/bookings/"+b.ID+"/complete", nil, map[string]string{"Authorization": "Bearer " + admin})
		if resp.StatusCode != 200 || mustBooking(t, body3).Status != "Completed" {
			t.Fatalf("complete: %d %s", resp.StatusCode, body3)
		}
		// A B2B token cannot use the admin route.
		if resp, _ := s.do(s.client, http.MethodGet, s.base+"/api/v1/admin/bookings/"+b.ID, nil, map[string]string{"Authorization": "Bearer " + tok}); resp.StatusCode != 403 {
			t.Errorf("admin route with a B2B token: %d", resp.StatusCode)
		}
		final := s.waitStatus(tok, b.ID, "Completed")
		var hist []string
		for _, h := range final.History {
			hist = append(hist, h.Status)
		}
		if strings.Join(hist, ",") != "Pending,Issued,Confirmed,Completed" {
			t.Errorf("history %v", hist)
		}

		// The list.
		resp, list := s.bookingCall(http.MethodGet, bookingPath+"?status=Completed&limit=10", tok)
		if resp.StatusCode != 200 || !strings.Contains(string(list), b.ID) || !strings.Contains(string(list), `"total":1`) {
			t.Errorf("list: %d %.300s", resp.StatusCode, list)
		}
	})
}

// adminToken mints an employee token with the admin scopes (the login flow is a later
// capability; the token is what it will issue).
func (s *testServer) adminToken() string {
	s.t.Helper()
	db := s.openStore()
	km := s.keyManager(db, time.Now)
	return s.mintToken(km, time.Now, testPublicURL, oauth.Claims{
		Subject: "employee-1", ClientID: "skygate-admin", Scopes: []string{skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications}, Roles: []string{"admin"},
	})
}

// TestBookingAccessRules covers, on both engines, what a partner may not do: book
// without a client certificate (401), write with a read-only token (403), see another
// account's bookings (404), simulate as a production application (403).
func TestBookingAccessRules(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("acme", bookingScopes)
		tok := s.mustToken(c, "")
		ft := s.firstFastTrack(tok)
		id := s.mustBook(tok, "k", ft, "").ID

		// No client certificate: on the plain listener and on the TLS listener.
		for name, do := range map[string]func() (*http.Response, []byte){
			"plain listener": func() (*http.Response, []byte) {
				return s.do(s.client, http.MethodGet, s.base+bookingPath+"/"+id, nil, map[string]string{"Authorization": "Bearer " + tok})
			},
			"TLS without certificate": func() (*http.Response, []byte) {
				return s.do(s.noCertClient, http.MethodGet, s.mtlsBase+bookingPath+"/"+id, nil, map[string]string{"Authorization": "Bearer " + tok})
			},
		} {
			resp, body := do()
			if p := problemOf(t, resp, body); resp.StatusCode != 401 || p["code"] != "ClientCertificateRequired" {
				t.Errorf("%s: %d %v", name, resp.StatusCode, p)
			}
		}

		// A read-only token cannot write: create, confirm, cancel (nor simulate, for a
		// sandbox application); it can read.
		readOnly := s.mustToken(c, skygate.ScopeBookingRead)
		if resp, body := s.book(s.mtlsClient, readOnly, "k2", bookingBody(ft, "")); resp.StatusCode != 403 || problemOf(t, resp, body)["code"] != "InsufficientScope" {
			t.Errorf("read-only create: %d", resp.StatusCode)
		}
		sandboxRO := s.mustToken(s.mustBootstrap("sandbox-ro", bookingScopes, "--sandbox"), skygate.ScopeBookingRead)
		for _, call := range []struct{ tok, method, path, body string }{
			{readOnly, http.MethodPost, bookingPath + "/" + id + "/confirm", ""},
			{readOnly, http.MethodPost, bookingPath + "/" + id + "/cancel", ""},
			{sandboxRO, http.MethodPost, "/v2/sandbox/booking/fast-tracks/" + id + "/simulate", `{"event":"issue"}`},
		} {
			resp, body := s.do(s.mtlsClient, call.method, s.mtlsBase+call.path, strings.NewReader(call.body),
				map[string]string{"Authorization": "Bearer " + call.tok, "Content-Type": "application/json"})
			if p := problemOf(t, resp, body); resp.StatusCode != 403 || p["code"] != "InsufficientScope" ||
				!strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
				t.Errorf("read-only %s: %d %v", call.path, resp.StatusCode, p)
			}
		}
		if resp, body := s.bookingCall(http.MethodGet, bookingPath+"/"+id, readOnly); resp.StatusCode != 200 {
			t.Errorf("read-only get: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.bookingCall(http.MethodGet, bookingPath+"/"+id, tok); resp.StatusCode != 200 || mustBooking(t, body).Status == "Canceled" {
			t.Errorf("the refused writes changed the booking: %d %s", resp.StatusCode, body)
		}

		// Another account sees nothing: 404 everywhere, and its own list is empty.
		other := s.mustToken(s.mustBootstrap("globex", bookingScopes), "")
		for _, call := range []struct{ method, path string }{
			{http.MethodGet, bookingPath + "/" + id},
			{http.MethodPost, bookingPath + "/" + id + "/confirm"},
			{http.MethodPost, bookingPath + "/" + id + "/cancel"},
			{http.MethodGet, bookingPath + "/" + id + "/pass"},
		} {
			resp, body := s.bookingCall(call.method, call.path, other)
			if p := problemOf(t, resp, body); resp.StatusCode != 404 || p["code"] != "NotFound" {
				t.Errorf("other account %s %s: %d %v", call.method, call.path, resp.StatusCode, p)
			}
		}
		if _, list := s.bookingCall(http.MethodGet, bookingPath, other); !strings.Contains(string(list), `"total":0`) {
			t.Errorf("other account's list: %s", list)
		}
		// The same Idempotency-Key in another account is another booking.
		if resp, body := s.book(s.mtlsClient, other, "k", bookingBody(ft, "")); resp.StatusCode != 202 || resp.Header.Get("Idempotency-Status") != "created" || mustBooking(t, body).ID == id {
			t.Errorf("key of another account: %d %q", resp.StatusCode, resp.Header.Get("Idempotency-Status"))
		}

		// Simulate is for sandbox applications only.
		resp, body := s.do(s.mtlsClient, http.MethodPost, s.mtlsBase+"/v2/sandbox/booking/fast-tracks/"+id+"/simulate", strings.NewReader(`{"event":"expire"}`),
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
		if resp.StatusCode != 403 {
			t.Errorf("simulate by a production application: %d %s", resp.StatusCode, body)
		}

	})
}

func TestBookingCertificateBinding(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
	certPEM, err := os.ReadFile(pki.ClientCert)
	if err != nil {
		t.Fatal(err)
	}
	devThumb := thumbprintOfPEM(t, certPEM)

	bound := s.mustToken(s.mustBootstrap("bound", bookingScopes, "--client-cert-sha256", devThumb), "")
	other := s.mustToken(s.mustBootstrap("elsewhere", bookingScopes, "--client-cert-sha256", base64.RawURLEncoding.EncodeToString(make([]byte, 32))), "")
	if resp, _ := s.bookingCall(http.MethodGet, bookingPath, bound); resp.StatusCode != 200 {
		t.Errorf("matching certificate: %d", resp.StatusCode)
	}
	resp, body := s.bookingCall(http.MethodGet, bookingPath, other)
	if p := problemOf(t, resp, body); resp.StatusCode != 401 || p["code"] != "ClientCertificateRequired" {
		t.Errorf("other certificate: %d %v", resp.StatusCode, p)
	}
}

func thumbprintOfPEM(tb testing.TB, certPEM []byte) string {
	tb.Helper()
	der := pemBlock(tb, certPEM)
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestBookingConcurrentSameKey(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		tok := s.mustToken(s.mustBootstrap("acme", bookingScopes), "")
		body := bookingBody(s.firstFastTrack(tok), "race")
		var wg sync.WaitGroup
		ids := make(chan string, 50)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, b := s.book(s.mtlsClient, tok, "same-key", body)
				if resp.StatusCode != 202 {
					t.Errorf("create: %d %s", resp.StatusCode, b)
					return
				}
				ids <- mustBooking(t, b).ID
			}()
		}
		wg.Wait()
		close(ids)
		seen := map[string]bool{}
		for id := range ids {
			seen[id] = true
		}
		_, list := s.bookingCall(http.MethodGet, bookingPath, tok)
		if len(seen) != 1 || !strings.Contains(string(list), `"total":1`) {
			t.Fatalf("50 creates with one key made %d bookings: %.200s", len(seen), list)
		}
	})
}

func TestSandboxSimulate(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(s.mustBootstrap("sandboxer", bookingScopes, "--sandbox"), "")
	id := s.mustBook(tok, "k", s.firstFastTrack(tok), "").ID
	simulate := func(event string) (*http.Response, []byte) {
		return s.do(s.mtlsClient, http.MethodPost, s.mtlsBase+"/v2/sandbox/booking/fast-tracks/"+id+"/simulate", strings.NewReader(`{"event":"`+event+`"}`),
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
	}
	s.waitStatus(tok, id, "Issued")
	if resp, body := simulate("use"); resp.StatusCode != 409 {
		t.Errorf("use while Issued: %d %s", resp.StatusCode, body)
	}
	if resp, body := simulate("expire"); resp.StatusCode != 200 || mustBooking(t, body).Status != "Expired" {
		t.Errorf("expire: %d %s", resp.StatusCode, body)
	}
	if resp, _ := simulate("explode"); resp.StatusCode != 422 {
		t.Errorf("unknown event: %d", resp.StatusCode)
	}
}

// TestBookingClientCertFromTrustedProxy: a certificate in SKYGATE_TRUSTED_PROXY_CERT_HEADER
// counts only when that header is configured, only from SKYGATE_TRUSTED_PROXIES, only
// when it chains to the client CA, as on the mTLS listener, only when it is not a CA
// certificate, and only when the header comes once.
func TestBookingClientCertFromTrustedProxy(t *testing.T) {
	t.Parallel()
	// A well-formed certificate of another CA.
	foreign, err := devpki.Ensure(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	foreignPEM, err := os.ReadFile(foreign.ClientCert)
	if err != nil {
		t.Fatal(err)
	}
	proxied := map[string]string{"SKYGATE_TRUSTED_PROXY_CERT_HEADER": "X-Client-Cert", "SKYGATE_TRUSTED_PROXIES": "127.0.0.1/32"}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		cert   string // the dev client certificate when empty; "foreign", "ca" or "intermediate"
		twice  bool   // send the header twice
		status int
	}{
		{"trusted proxy", proxied, "", false, 200},
		{"untrusted source", map[string]string{"SKYGATE_TRUSTED_PROXY_CERT_HEADER": "X-Client-Cert", "SKYGATE_TRUSTED_PROXIES": "10.0.0.0/8"}, "", false, 401},
		{"off by default", nil, "", false, 401},
		{"certificate of another CA", proxied, "foreign", false, 401},
		{"the client CA's own certificate", proxied, "ca", false, 401},
		{"a CA certificate the client CA signed", proxied, "intermediate", false, 401},
		{"the header twice", proxied, "", true, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, testEnv(t, tc.env))
			tok := s.mustToken(s.mustBootstrap("acme", bookingScopes), "")
			pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
			certPEM, err := os.ReadFile(pki.ClientCert)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.cert {
			case "foreign":
				certPEM = foreignPEM
			case "ca":
				if certPEM, err = os.ReadFile(pki.CA); err != nil {
					t.Fatal(err)
				}
			case "intermediate":
				certPEM = mustIntermediateCA(t, pki)
			}
			// nginx's $ssl_client_escaped_cert: the PEM, URL-escaped, on the plain listener.
			h := map[string]string{"Authorization": "Bearer " + tok, "X-Client-Cert": url.QueryEscape(string(certPEM))}
			req, err := http.NewRequest(http.MethodGet, s.base+bookingPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range h {
				req.Header.Set(k, v)
			}
			if tc.twice {
				req.Header.Add("X-Client-Cert", h["X-Client-Cert"])
			}
			resp, err := s.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 401 {
				if p := problemOf(t, resp, body); p["code"] != "ClientCertificateRequired" {
					t.Errorf("problem %v", p)
				}
			}
			// Garbage in the header is refused, never a 5xx.
			h["X-Client-Cert"] = url.QueryEscape(strings.Replace(string(certPEM), "MII", "MIJ", 1))
			if resp, _ := s.do(s.client, http.MethodGet, s.base+bookingPath, nil, h); resp.StatusCode != 401 {
				t.Errorf("garbled certificate: %d", resp.StatusCode)
			}
		})
	}
}

// TestBookingRefusesCACertificateOverMTLS: whoever holds a CA certificate and its key
// (the client CA itself, or a CA it signed) completes the TLS handshake, since the
// certificate chains to the client CA; it still identifies no client.
func TestBookingRefusesCACertificateOverMTLS(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(s.mustBootstrap("acme", bookingScopes), "")
	pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
	caPEM, err := os.ReadFile(pki.CA)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(pki.ClientCAKey)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(caPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	tr := s.tlsTransport(false)
	tr.TLSClientConfig.Certificates = []tls.Certificate{pair}
	c := &http.Client{Transport: newValidatingTransport(t, tr, s.base, s.mtlsBase)}
	resp, body := s.do(c, http.MethodGet, s.mtlsBase+bookingPath, nil, map[string]string{"Authorization": "Bearer " + tok})
	if resp.StatusCode != 401 || problemOf(t, resp, body)["code"] != "ClientCertificateRequired" {
		t.Fatalf("the CA's own certificate over mTLS: %d %s", resp.StatusCode, body)
	}
}

// mustIntermediateCA returns, as PEM, a CA certificate signed by the development CA.
func mustIntermediateCA(tb testing.TB, pki devpki.Files) []byte {
	tb.Helper()
	ca, caKey, err := devpki.LoadCA(pki)
	if err != nil {
		tb.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "intermediate"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
