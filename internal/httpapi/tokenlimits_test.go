package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/ratelimit"
	"github.com/skygate/skygate/internal/seal"
)

// testClock is a clock that tests move.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// countingApps knows no application and counts the lookups.
type countingApps struct{ lookups atomic.Int64 }

func (a *countingApps) ApplicationByClientID(context.Context, string) (*skygate.Application, *skygate.Account, error) {
	a.lookups.Add(1)
	return nil, nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}

// tokenServer is a Server whose token endpoint is the real TokenHandler with the
// client_credentials grant over apps, and counts the requests that reach it.
type tokenServer struct {
	*Server
	clock   *testClock
	limiter *ratelimit.Memory
	apps    *countingApps
	reached atomic.Int64
}

func newTokenServer(t testing.TB, source, client ratelimit.Rate) *tokenServer {
	t.Helper()
	box, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	ts := &tokenServer{clock: &testClock{t: time.Unix(1_700_000_000, 0)}, apps: &countingApps{}}
	ts.limiter = ratelimit.NewMemory(ts.clock.Now)
	auth := oauth.NewClientAuthenticator(oauth.NewApplicationCache(ts.apps, time.Second, ts.clock.Now), oauth.NewSecretHasher(box))
	tokens := oauth.NewTokenHandler(nil, oauth.NewClientCredentialsGrant(auth, nil))
	none := http.NotFoundHandler()
	ts.Server = NewServer(Deps{
		TokenEndpoint: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ts.reached.Add(1)
			tokens.ServeHTTP(w, r)
		}),
		JWKS: none, Discovery: none, Now: ts.clock.Now,
		Limits: RateLimits{Limiter: ts.limiter, TokenSource: source, Token: client},
	})
	tokens.Hooks = ts.TokenHooks()
	return ts
}

// post sends a client_credentials request from peer with HTTP Basic user and secret.
func (ts *tokenServer) post(peer, user, secret string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/oauth/v2/token", strings.NewReader("grant_type=client_credentials"))
	r.RemoteAddr = peer
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(secret))
	w := httptest.NewRecorder()
	ts.ServeHTTP(w, r)
	return w
}

// TestTokenFloodRefusedBeforeAnyWork: once a source address has used its allowance,
// its token requests are answered 429 before the token handler sees them (no client
// lookup, no secret check), whatever username each one claims.
func TestTokenFloodRefusedBeforeAnyWork(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t, ratelimit.Rate{PerSecond: 1, Burst: 3}, ratelimit.Rate{PerSecond: 10, Burst: 20})
	for i := range 10 {
		w := ts.post("192.0.2.7:4711", fmt.Sprint("partner-", i), "sks_wrong")
		want := http.StatusUnauthorized
		if i >= 3 {
			want = http.StatusTooManyRequests
		}
		if w.Code != want {
			t.Fatalf("request %d: %d, want %d: %s", i, w.Code, want, w.Body)
		}
		if want == http.StatusTooManyRequests {
			h := w.Header()
			if h.Get("Retry-After") != "1" || h.Get("RateLimit-Limit") != "3" || h.Get("RateLimit-Remaining") != "0" ||
				h.Get("RateLimit-Reset") == "" || h.Get("Content-Type") != "application/problem+json" ||
				!strings.Contains(w.Body.String(), `"code":"RateLimited"`) {
				t.Fatalf("request %d: %v %s", i, h, w.Body)
			}
		}
	}
	if n, m := ts.reached.Load(), ts.apps.lookups.Load(); n != 3 || m != 3 {
		t.Fatalf("%d requests reached the token handler and %d client lookups were made, want 3 each", n, m)
	}
	// Another address has an allowance of its own.
	if w := ts.post("192.0.2.8:4711", "partner-0", "sks_wrong"); w.Code != http.StatusUnauthorized {
		t.Fatalf("another address: %d", w.Code)
	}
}

// TestTokenFloodOfLongUsernames drives 1,000 token requests with distinct 40 KiB
// usernames, each from an address of its own so that all reach client authentication:
// the heap holds none of the usernames meanwhile, and is back where it was a minute
// later, after the limiter's sweep. Not parallel: it measures the heap.
func TestTokenFloodOfLongUsernames(t *testing.T) {
	ts := newTokenServer(t, ratelimit.Rate{PerSecond: 1, Burst: 3}, ratelimit.Rate{PerSecond: 1, Burst: 3})
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	const mib = 1 << 20
	base := heap()
	user := make([]byte, 40<<10)
	for i := range user {
		user[i] = 'u'
	}
	for i := range 1000 {
		binary.BigEndian.PutUint32(user[:4], uint32(i)|0x40404040)
		peer := fmt.Sprintf("10.%d.%d.%d:4711", i>>16&0xff, i>>8&0xff, i&0xff)
		if w := ts.post(peer, string(user), "sks_wrong"); w.Code != http.StatusUnauthorized {
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
	}
	if grown := heap() - base; grown > 8*mib {
		t.Errorf("the heap grew by %.1f MiB during the flood: usernames are kept", float64(grown)/mib)
	}
	ts.clock.Add(time.Minute)
	ts.limiter.Sweep()
	if grown := heap() - base; grown > 2*mib {
		t.Errorf("the heap is %.1f MiB above where it was a minute after the flood", float64(grown)/mib)
	}
	runtime.KeepAlive(ts)
}
