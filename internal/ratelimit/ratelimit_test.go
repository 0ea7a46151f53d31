package ratelimit_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/skygate/skygate/internal/ratelimit"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newMemory returns an in-process limiter on a fake clock at a fixed time.
func newMemory() (*fakeClock, *ratelimit.Memory) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	return clk, ratelimit.NewMemory(clk.Now)
}

func TestMemoryGCRA(t *testing.T) {
	t.Parallel()
	clk, m := newMemory()
	r := ratelimit.Rate{PerSecond: 10, Burst: 5}
	ctx := context.Background()
	for i := range 5 {
		d, _ := m.Allow(ctx, "k", r)
		if !d.Allowed || d.Limit != 5 || d.Remaining != 4-i {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d, _ := m.Allow(ctx, "k", r)
	if d.Allowed || d.RetryAfter != 100*time.Millisecond || d.Remaining != 0 {
		t.Fatalf("sixth request: %+v", d)
	}
	if d, _ := m.Allow(ctx, "other", r); !d.Allowed {
		t.Fatal("keys share state")
	}
	clk.Add(100 * time.Millisecond)
	if d, _ := m.Allow(ctx, "k", r); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after one interval: %+v", d)
	}
	clk.Add(time.Second)
	if d, _ := m.Allow(ctx, "k", r); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("after a quiet second: %+v", d)
	}
	if d, _ := m.Allow(ctx, "k", ratelimit.Rate{}); !d.Allowed {
		t.Fatal("a zero rate limits")
	}
}

// TestMemorySweep: the periodic sweep of a shard (every 4096 requests) keeps a key that
// is still limited, and a key swept once its allowance was full again starts full.
func TestMemorySweep(t *testing.T) {
	t.Parallel()
	clk, m := newMemory()
	r := ratelimit.Rate{PerSecond: 1, Burst: 2}
	ctx := context.Background()
	for i := range 2 * 4096 {
		d, _ := m.Allow(ctx, "k", r)
		if d.Allowed != (i < 2) {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	clk.Add(10 * time.Second)
	for i := range 4096 {
		if d, _ := m.Allow(ctx, fmt.Sprint("other-", i), r); !d.Allowed {
			t.Fatalf("a new key was refused: %+v", d)
		}
	}
	if d, _ := m.Allow(ctx, "k", r); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after a quiet 10 s: %+v", d)
	}
}

func TestMemoryConcurrentNeverExceedsBurst(t *testing.T) {
	t.Parallel()
	_, m := newMemory()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if d, _ := m.Allow(context.Background(), "k", ratelimit.Rate{PerSecond: 1, Burst: 20}); d.Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != 20 {
		t.Fatalf("%d allowed at one instant, want the burst of 20", allowed.Load())
	}
}

// TestMemoryReadsTheClockInTurn: a request is judged at a time read once it has its
// key's turn. The first request's clock read is held up; the second must wait for the
// first instead of being decided at a later time and leaving the first to be judged
// behind it (and refused, with an allowance of one request per microsecond).
func TestMemoryReadsTheClockInTurn(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	var calls atomic.Int32
	inClock, release := make(chan struct{}), make(chan struct{})
	m := ratelimit.NewMemory(func() time.Time {
		if calls.Add(1) == 1 {
			close(inClock)
			<-release
			return t0
		}
		return t0.Add(10 * time.Microsecond)
	})
	r := ratelimit.Rate{PerSecond: 1e6, Burst: 1}
	allow := func(out chan<- ratelimit.Decision) {
		d, _ := m.Allow(context.Background(), "k", r)
		out <- d
	}
	first, second := make(chan ratelimit.Decision, 1), make(chan ratelimit.Decision, 1)
	go allow(first)
	<-inClock
	go allow(second)
	// Time for the second request to be decided out of turn, if it can be; the test
	// passes without it, but then proves nothing.
	time.Sleep(20 * time.Millisecond)
	close(release)
	if d := <-first; !d.Allowed {
		t.Fatalf("the first request was judged behind the second: %+v", d)
	}
	if d := <-second; !d.Allowed {
		t.Fatalf("second request: %+v", d)
	}
}

// TestRedisSharesLimits runs against the Redis of SKYGATE_TEST_REDIS_URL: two limiters
// (two replicas) share one allowance.
func TestRedisSharesLimits(t *testing.T) {
	t.Parallel()
	url := os.Getenv("SKYGATE_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SKYGATE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379/0); skipping the Redis limiter test")
	}
	prefix := fmt.Sprintf("skygate-test-%d:", time.Now().UnixNano())
	a, err := ratelimit.NewRedis(url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, _ := ratelimit.NewRedis(url, prefix)
	defer b.Close()
	if err := a.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := ratelimit.Rate{PerSecond: 0.5, Burst: 6}
	allowed := 0
	for i := range 12 {
		l := a
		if i%2 == 1 {
			l = b
		}
		d, err := l.Allow(context.Background(), "acct", r)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		} else if d.RetryAfter <= 0 || d.RetryAfter > 2*time.Second {
			t.Errorf("refused with RetryAfter %v", d.RetryAfter)
		}
	}
	if allowed != 6 {
		t.Fatalf("two replicas allowed %d, want the shared burst of 6", allowed)
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := ratelimit.NewMemory(nil)
	r := ratelimit.Rate{PerSecond: 1e9, Burst: 1000}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Allow(context.Background(), "account-1", r)
		}
	})
}

// TestRedisKeysBoundedExpiringRefundable runs against the Redis of
// SKYGATE_TEST_REDIS_URL: a 40 KiB key is stored as a fixed-size digest with an expiry,
// and a refund gives one request back.
func TestRedisKeysBoundedExpiringRefundable(t *testing.T) {
	t.Parallel()
	url := os.Getenv("SKYGATE_TEST_REDIS_URL")
	if url == "" {
		t.Skip("SKYGATE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379/0); skipping the Redis limiter test")
	}
	prefix := fmt.Sprintf("skygate-test-%d:", time.Now().UnixNano())
	l, err := ratelimit.NewRedis(url, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	key := strings.Repeat("u", 40<<10)
	r := ratelimit.Rate{PerSecond: 0.5, Burst: 2}
	for range 2 {
		if d, err := l.Allow(ctx, key, r); err != nil || !d.Allowed {
			t.Fatalf("%+v %v", d, err)
		}
	}
	if d, _ := l.Allow(ctx, key, r); d.Allowed {
		t.Fatalf("over the burst: %+v", d)
	}
	if err := l.Refund(ctx, key, r); err != nil {
		t.Fatal(err)
	}
	if d, _ := l.Allow(ctx, key, r); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after a refund: %+v", d)
	}

	opts, _ := redis.ParseURL(url)
	c := redis.NewClient(opts)
	defer c.Close()
	keys, err := c.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || len(keys[0]) != len(prefix)+32 {
		t.Fatalf("keys %.80q, want one of %d bytes", keys, len(prefix)+32)
	}
	if ttl, err := c.PTTL(ctx, keys[0]).Result(); err != nil || ttl <= 0 || ttl > 6*time.Second {
		t.Fatalf("expiry %v %v, want until the allowance is full (4 s) and a second", ttl, err)
	}
	// Refunds never make an allowance more than full; a full key is gone.
	for range 3 {
		if err := l.Refund(ctx, key, r); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := c.Exists(ctx, keys[0]).Result(); n != 0 {
		t.Errorf("a full key is still stored")
	}
	if d, _ := l.Allow(ctx, key, r); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after refunding more than was taken: %+v", d)
	}
}
