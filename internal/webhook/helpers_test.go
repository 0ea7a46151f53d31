package webhook_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
	"github.com/skygate/skygate/internal/webhook"
)

// secret1 and secret2 are signing secrets: one used verbatim as the HMAC key, one in
// the Standard Webhooks whsec_ form.
const (
	secret1 = "a-plain-secret-of-32-characters!"
	secret2 = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)

// fakeClock is a skygate.Clock that moves only when told. It starts at the real time so
// that the Standard Webhooks timestamp tolerance holds until a test moves it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Now().UTC().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// request is what the receiver saw.
type request struct {
	ID, Timestamp, Signature string
	Header                   http.Header
	Body                     []byte
}

// receiver is a real HTTP endpoint on 127.0.0.1 that records every request and answers
// with respond (200 when nil). n counts the requests of one webhook-id, from 1.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []request
	byID    map[string]int
	respond func(w http.ResponseWriter, r *request, n int)
}

func newReceiver(t testing.TB, respond func(w http.ResponseWriter, r *request, n int)) *receiver {
	rc := &receiver{byID: map[string]int{}, respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := request{
			ID:        r.Header.Get("webhook-id"),
			Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"),
			Header:    r.Header.Clone(),
			Body:      body,
		}
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, req)
		rc.byID[req.ID]++
		n := rc.byID[req.ID]
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(w, &req, n)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// requests returns a copy of what was received so far.
func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

// distinct returns how many distinct webhook-ids were received.
func (rc *receiver) distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.byID)
}

// ids returns the distinct webhook-ids received (the receiver's dedupe set).
func (rc *receiver) ids() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make(map[string]int, len(rc.byID))
	for k, v := range rc.byID {
		out[k] = v
	}
	return out
}

// bundle is one test's world: a store, a subscribed account, the service and a
// dispatcher, with a fake clock and a receiver.
type bundle struct {
	store   skygate.Store
	box     *seal.Box
	clock   *fakeClock
	rc      *receiver
	svc     *webhook.Service
	disp    *webhook.Dispatcher
	account string
	sub     *skygate.WebhookSubscription
}

// engine opens a migrated store; PostgreSQL tests skip without a DSN.
type engine struct {
	name string
	open func(testing.TB) skygate.Store
}

var engines = []engine{
	{"sqlite", func(tb testing.TB) skygate.Store { return sqlitetest.MustOpen(tb) }},
	{"postgres", func(tb testing.TB) skygate.Store { return pgtest.MustOpen(tb) }},
}

// setup builds a bundle on SQLite whose account is subscribed to rc with secret1.
// Jitter is off (Rand returns the midpoint) so retry times are exact.
func setup(t testing.TB, respond func(w http.ResponseWriter, r *request, n int)) *bundle {
	return setupOn(t, engines[0], respond)
}

// retention is the event retention of the bundle's service.
const retention = 10 * 24 * time.Hour

func setupOn(t testing.TB, e engine, respond func(w http.ResponseWriter, r *request, n int)) *bundle {
	t.Helper()
	b := &bundle{store: e.open(t), clock: newClock(), rc: newReceiver(t, respond)}
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	b.box = box
	b.disp = b.newDispatcher(b.store)
	b.svc = webhook.NewService(webhook.Config{
		Store:  b.store,
		Box:    box,
		Policy: webhook.Policy{AllowHTTP: true, AllowPrivate: true},
		Clock:  b.clock.Now,
		Notify: b.disp.Notify,

		Retention: retention,
	})
	b.account = storetest.MustCreateAccount(t, b.store).ID
	b.sub = mustCreate(t, b.svc, b.account, b.rc.URL+"/hook", secret1)
	return b
}

// newDispatcher returns a dispatcher on store with the bundle's clock and box.
func (b *bundle) newDispatcher(store skygate.WebhookStore) *webhook.Dispatcher {
	return webhook.NewDispatcher(webhook.DispatcherConfig{
		Store:        store,
		Box:          b.box,
		AllowPrivate: true,
		Clock:        b.clock.Now,
		Rand:         func() float64 { return 0.5 },
		PollInterval: 5 * time.Millisecond,
	})
}

func mustCreate(t testing.TB, svc *webhook.Service, accountID, url, secret string) *skygate.WebhookSubscription {
	t.Helper()
	w, err := svc.Create(context.Background(), accountID, webhook.CreateRequest{URL: url, Secret: secret})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return w
}

// mustTest sends a webhook.test event through the outbox and returns its delivery.
func (b *bundle) mustTest(t testing.TB) *skygate.WebhookDelivery {
	t.Helper()
	d, err := b.svc.Test(context.Background(), b.account, b.sub.ID, true)
	if err != nil {
		t.Fatalf("Test: %v", err)
	}
	return d
}

// mustRunOnce runs one dispatcher pass and checks how many deliveries it sent.
func (b *bundle) mustRunOnce(t testing.TB, want int) {
	t.Helper()
	n, err := b.disp.RunOnce(context.Background())
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	if n != want {
		t.Fatalf("RunOnce sent %d deliveries, want %d", n, want)
	}
}

// drain runs dispatcher passes until one finds nothing due and returns how many
// deliveries were sent.
func (b *bundle) drain(t testing.TB) int {
	t.Helper()
	total := 0
	for {
		n, err := b.disp.RunOnce(context.Background())
		if err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
}

func (b *bundle) mustDelivery(t testing.TB, id string) *skygate.WebhookDelivery {
	t.Helper()
	d, err := b.svc.Delivery(context.Background(), b.account, b.sub.ID, id)
	if err != nil {
		t.Fatalf("Delivery: %v", err)
	}
	return d
}

func (b *bundle) mustSub(t testing.TB) *skygate.WebhookSubscription {
	t.Helper()
	w, err := b.svc.Get(context.Background(), b.account, b.sub.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return w
}

// verifier returns the Standard Webhooks library's verifier for a secret, choosing
// the constructor that matches how Skygate reads the secret.
func verifier(t testing.TB, secret string) *standardwebhooks.Webhook {
	t.Helper()
	var (
		wh  *standardwebhooks.Webhook
		err error
	)
	if strings.HasPrefix(secret, webhook.SecretPrefix) {
		wh, err = standardwebhooks.NewWebhook(secret)
	} else {
		wh, err = standardwebhooks.NewWebhookRaw([]byte(secret))
	}
	if err != nil {
		t.Fatalf("standardwebhooks: %v", err)
	}
	return wh
}

// mustVerify checks r's signature with the library, ignoring the timestamp's age
// (the tests move the clock by hours).
func mustVerify(t testing.TB, r request, secret string) {
	t.Helper()
	if err := verifier(t, secret).VerifyIgnoringTimestamp(r.Body, r.Header); err != nil {
		t.Fatalf("signature of %s does not verify with %q: %v (header %q)", r.ID, secret, err, r.Signature)
	}
}

// fakeResolver answers from a table; a host with several answers gives them in turn,
// one per call, repeating the last (a rebinding DNS server).
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]string
	calls   map[string]int
}

func newResolver(answers map[string][]string) *fakeResolver {
	return &fakeResolver{answers: answers, calls: map[string]int{}}
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, ok := r.answers[host]
	if !ok {
		return nil, &netDNSError{host}
	}
	i := min(r.calls[host], len(list)-1)
	r.calls[host]++
	var out []netip.Addr
	for _, s := range strings.Split(list[i], ",") {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

type netDNSError struct{ host string }

func (e *netDNSError) Error() string { return "no such host " + e.host }
