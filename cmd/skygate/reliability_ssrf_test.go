package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// Webhook URLs as an attacker would write them to reach the service's own network
// (SSRF): refused at create and change-url with a 422 on the field url, by a server
// configured as a sandbox deployment would be (plain http allowed, private addresses
// not). And receivers that misbehave: a redirect is a recorded failure and is not
// followed, a tarpit times out, an endless answer is cut, and the server stays healthy
// throughout.

// ssrfURLs are webhook URLs that must be refused when private addresses are not allowed.
func ssrfURLs(t *testing.T) map[string]string {
	urls := map[string]string{
		"decimal IPv4":             "http://2130706433/",
		"octal IPv4":               "http://017700000001/",
		"hexadecimal IPv4":         "http://0x7f000001/",
		"dotted hexadecimal":       "http://0x7f.0x0.0x0.0x1/",
		"short IPv4":               "http://127.1/",
		"loopback":                 "http://127.0.0.1/",
		"loopback with port":       "http://127.0.0.1:6379/",
		"IPv4-mapped IPv6":         "http://[::ffff:127.0.0.1]/",
		"IPv4-mapped IPv6 hex":     "http://[::ffff:7f00:1]/",
		"IPv6 loopback":            "http://[::1]/",
		"IPv6 loopback long form":  "http://[0:0:0:0:0:0:0:1]/",
		"unspecified":              "http://0.0.0.0/",
		"IPv6 unspecified":         "http://[::]/",
		"metadata":                 "http://169.254.169.254/latest/meta-data",
		"metadata IPv6":            "http://[fd00:ec2::254]/latest/meta-data",
		"metadata via NAT64":       "http://[64:ff9b::a9fe:a9fe]/",
		"loopback via 6to4":        "http://[2002:7f00:1::]/",
		"link-local IPv6 zone":     "http://[fe80::1%25eth0]/",
		"CGNAT (Alibaba metadata)": "http://100.100.100.200/",
		"private 10/8":             "http://10.0.0.1/",
		"private 172.16/12":        "http://172.16.0.1/",
		"private 192.168/16":       "http://192.168.1.1/",
		"benchmarking 198.18/15":   "http://198.18.0.1/",
		"multicast":                "http://224.0.0.1/",
		"broadcast":                "http://255.255.255.255/",
		"localhost":                "http://localhost/",
		"LOCALHOST":                "http://LOCALHOST:8080/",
		"localhost with a dot":     "http://localhost./",
		"subdomain of localhost":   "http://api.localhost/",
		"unresolvable name":        "http://does-not-resolve.invalid/",
		"userinfo":                 "http://user:pass@93.184.215.14/",
		"userinfo to loopback":     "http://93.184.215.14@127.0.0.1/",
		"empty userinfo":           "http://@93.184.215.14/",
		"port 0":                   "http://93.184.215.14:0/",
		"port 65536":               "http://93.184.215.14:65536/",
		"fragment":                 "http://93.184.215.14/#frag",
		"over 2048 characters":     "http://93.184.215.14/" + strings.Repeat("a", 2048),
		"space":                    "http://93.184.215.14/a b",
		"CRLF":                     "http://93.184.215.14/\r\nX-Injected: 1",
		"NUL":                      "http://93.184.215.14/\x00",
		"ftp":                      "ftp://93.184.215.14/",
		"file":                     "file:///etc/passwd",
		"gopher to Redis":          "gopher://127.0.0.1:6379/_INFO",
		"javascript":               "javascript:alert(1)",
		"scheme-relative":          "//93.184.215.14/",
		"relative":                 "/hook",
		"single slash":             "http:/93.184.215.14/",
		"empty":                    "",
	}
	// The machine's own name, when it resolves to a private address (as /etc/hosts
	// usually makes it): a name, not a literal, that leads inside.
	if h, err := os.Hostname(); err == nil {
		if addrs, err := net.LookupHost(h); err == nil && len(addrs) > 0 {
			if a, err := netip.ParseAddr(addrs[0]); err == nil && webhook.CheckAddr(a) != nil {
				urls["host name resolving to "+a.String()] = "http://" + h + "/"
			} else {
				t.Logf("the host name %s resolves to %v: not a private name here", h, addrs)
			}
		}
	}
	return urls
}

func TestWebhookSSRFForms(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, map[string]string{"SKYGATE_ENV": "sandbox", "SKYGATE_WEBHOOK_ALLOW_PRIVATE": "false", "SKYGATE_DEV_IDP": "true", "SKYGATE_DEV_PKI": "true"}))
		c := s.mustBootstrap("ssrf", skygate.B2BScopes)
		tok := s.mustToken(c, "")
		const secret = "ssrf-test-secret-long-enough"
		urls := ssrfURLs(t)
		plain, _ := s.rawClients()
		post := func(path string, body map[string]string) (*http.Response, []byte) {
			b, _ := json.Marshal(body)
			req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(string(b)))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := plain.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			return resp, out
		}
		refused := func(what string, resp *http.Response, body []byte) {
			t.Helper()
			var p struct {
				Code   string
				Errors []struct{ Field string }
			}
			if resp.StatusCode != http.StatusUnprocessableEntity || json.Unmarshal(body, &p) != nil || p.Code != "ValidationFailed" ||
				len(p.Errors) == 0 || p.Errors[0].Field != "url" {
				t.Errorf("%s: %d %.300s, want 422 ValidationFailed on url", what, resp.StatusCode, body)
			}
		}
		for name, u := range urls {
			resp, body := post("/api/v1/b2b/webhooks", map[string]string{"url": u, "secret": secret})
			refused("create "+name, resp, body)
		}
		// A public address is accepted (it is never reached: the test has no network),
		// and change-url refuses every form too.
		resp, body := post("/api/v1/b2b/webhooks", map[string]string{"url": "http://93.184.215.14/hook", "secret": secret})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("public URL: %d %s", resp.StatusCode, body)
		}
		id := mustJSON(t, body)["id"].(string)
		for name, u := range urls {
			resp, body := post("/api/v1/b2b/webhooks/"+id+"/change-url", map[string]string{"url": u})
			refused("change-url "+name, resp, body)
		}
		_, body = s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+id, tok, "", nil)
		if !strings.Contains(string(body), `"url":"http://93.184.215.14/hook"`) {
			t.Errorf("the subscription changed: %s", body)
		}
		s.checkServerLog(t)
	})
}

// TestWebhookHostileReceivers runs deliveries to receivers that redirect, never answer,
// or answer without end, on a development server (receivers are on loopback). The
// server's attempt timeout is shortened so that the tarpit's attempt ends soon.
func TestWebhookHostileReceivers(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second
	s := startServer(t, testEnv(t, map[string]string{"SKYGATE_WEBHOOK_TIMEOUT": timeout.String()}))

	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	t.Cleanup(target.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/latest/meta-data", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("x", 32<<10))
		for i := 0; i < 64<<10; i++ { // up to 2 GiB, unless the client hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(endless.Close)
	tarpit, held := newTarpit(t)

	type sub struct {
		name, url, tok, id string
		wantErr            string
		wantCode           int
	}
	subs := []*sub{
		{name: "redirect", url: redirect.URL + "/hook", wantErr: "redirects are not followed", wantCode: 307},
		{name: "tarpit", url: "http://" + tarpit + "/hook", wantErr: "timed out"},
		{name: "endless answer", url: endless.URL + "/hook", wantCode: 200},
	}
	for _, sb := range subs {
		c := s.mustBootstrap("receiver-"+strings.ReplaceAll(sb.name, " ", "-"), skygate.B2BScopes)
		sb.tok = s.mustToken(c, "")
		resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", sb.tok, `{"url":"`+sb.url+`","secret":"hostile-receiver-secret-01"}`, nil)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s: create %d %s", sb.name, resp.StatusCode, body)
		}
		sb.id = mustJSON(t, body)["id"].(string)
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+sb.id+"/test", sb.tok, "", nil); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: test %d %s", sb.name, resp.StatusCode, body)
		}
	}

	// While the tarpit holds a request, the service answers at once.
	select {
	case <-held:
	case <-time.After(timeout + 20*time.Second):
		t.Fatal("no attempt reached the tarpit")
	}
	for range 5 {
		start := time.Now()
		resp, _ := s.get("/readyz", "", nil)
		if resp.StatusCode != 200 || time.Since(start) > time.Second {
			t.Errorf("readyz during the tarpit: %d after %v", resp.StatusCode, time.Since(start))
		}
	}

	deadline := time.Now().Add(timeout + 20*time.Second)
	for _, sb := range subs {
		for {
			_, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+sb.id+"/deliveries", sb.tok, "", nil)
			var page struct {
				Data []struct {
					Status   string `json:"status"`
					Attempts []struct {
						StatusCode int    `json:"status_code"`
						Error      string `json:"error"`
					} `json:"attempts"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			if len(page.Data) == 1 && len(page.Data[0].Attempts) > 0 {
				d, a := page.Data[0], page.Data[0].Attempts[0]
				if a.StatusCode != sb.wantCode || !strings.Contains(a.Error, sb.wantErr) {
					t.Errorf("%s: attempt %+v, want status %d and an error with %q", sb.name, a, sb.wantCode, sb.wantErr)
				}
				if sb.wantErr == "" && d.Status != "succeeded" || sb.wantErr != "" && d.Status != "pending" {
					t.Errorf("%s: delivery %s", sb.name, d.Status)
				}
				t.Logf("%s: %s, attempt status %d error %q", sb.name, d.Status, a.StatusCode, a.Error)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no attempt recorded: %s", sb.name, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
	s.checkServerLog(t)
}

// newTarpit listens on loopback, accepts connections, reads what comes and never
// answers, until the test ends. The channel is closed when the first connection is
// accepted.
func newTarpit(t *testing.T) (addr string, held <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	accepted := make(chan struct{})
	first := sync.OnceFunc(func() { close(accepted) })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			first()
			go func() {
				defer conn.Close()
				go func() { _, _ = io.Copy(io.Discard, conn) }()
				<-done
			}()
		}
	}()
	return ln.Addr().String(), accepted
}
