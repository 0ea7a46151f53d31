package ratelimit_test

import (
	"context"
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/ratelimit"
)

// heapAlloc returns the bytes of live heap objects after a full collection.
func heapAlloc() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

const mib = 1 << 20

// TestMemoryFloodOfLongKeys: 10,000 distinct 40 KiB keys (a flood of made-up
// usernames) leave no more than a digest each while they are limited, and nothing once
// a minute has passed and the sweep has run. Not parallel: it measures the heap.
func TestMemoryFloodOfLongKeys(t *testing.T) {
	clk, m := newMemory()
	r := ratelimit.Rate{PerSecond: 1, Burst: 20}
	ctx := context.Background()
	base := heapAlloc()
	buf := make([]byte, 40<<10)
	for i := range 10_000 {
		binary.BigEndian.PutUint32(buf, uint32(i))
		if d, _ := m.Allow(ctx, string(buf), r); !d.Allowed {
			t.Fatalf("key %d refused: %+v", i, d)
		}
	}
	if grown := heapAlloc() - base; grown > 4*mib {
		t.Errorf("the heap grew by %.1f MiB for 10,000 limited keys: the keys are kept", float64(grown)/mib)
	}
	clk.Add(time.Minute)
	m.Sweep()
	if grown := heapAlloc() - base; grown > 2*mib {
		t.Errorf("the heap is %.1f MiB above where it was a minute after the flood", float64(grown)/mib)
	}
	runtime.KeepAlive(m)
}

// TestMemorySweepGivesMemoryBack: a sweep that empties shards that held many keys
// gives their memory back (a Go map keeps its buckets when keys are deleted). Not
// parallel: it measures the heap.
func TestMemorySweepGivesMemoryBack(t *testing.T) {
	clk, m := newMemory()
	r := ratelimit.Rate{PerSecond: 10, Burst: 20}
	ctx := context.Background()
	base := heapAlloc()
	var key [8]byte
	for i := range 200_000 {
		binary.BigEndian.PutUint64(key[:], uint64(i))
		m.Allow(ctx, string(key[:]), r)
	}
	full := heapAlloc() - base
	clk.Add(time.Minute)
	m.Sweep()
	if left := heapAlloc() - base; left > mib {
		t.Errorf("%.1f MiB left of %.1f MiB after sweeping every key", float64(left)/mib, float64(full)/mib)
	}
	runtime.KeepAlive(m)
}

// TestMemorySweepKeepsLimitedKeys: Sweep drops only keys whose allowance is full again;
// a key still limited stays limited, and a swept one starts full.
func TestMemorySweepKeepsLimitedKeys(t *testing.T) {
	t.Parallel()
	clk, m := newMemory()
	ctx := context.Background()
	slow, fast := ratelimit.Rate{PerSecond: 0.1, Burst: 1}, ratelimit.Rate{PerSecond: 10, Burst: 1}
	m.Allow(ctx, "slow", slow)
	m.Allow(ctx, "fast", fast)
	clk.Add(time.Second)
	m.Sweep()
	if d, _ := m.Allow(ctx, "slow", slow); d.Allowed {
		t.Fatalf("a limited key was swept: %+v", d)
	}
	if d, _ := m.Allow(ctx, "fast", fast); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("a full key: %+v", d)
	}
}

// TestMemoryRefund: a refund gives back one request, never more than the burst.
func TestMemoryRefund(t *testing.T) {
	t.Parallel()
	_, m := newMemory()
	ctx := context.Background()
	r := ratelimit.Rate{PerSecond: 1, Burst: 3}
	for range 3 {
		m.Allow(ctx, "k", r)
	}
	if d, _ := m.Allow(ctx, "k", r); d.Allowed {
		t.Fatalf("over the burst: %+v", d)
	}
	m.Refund(ctx, "k", r)
	if d, _ := m.Allow(ctx, "k", r); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after a refund: %+v", d)
	}
	for range 10 {
		m.Refund(ctx, "k", r)
		m.Refund(ctx, "unknown", r)
	}
	if d, _ := m.Allow(ctx, "k", r); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("after refunding more than was taken: %+v", d)
	}
	if d, _ := m.Allow(ctx, "unknown", r); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("a refunded unknown key: %+v", d)
	}
}

// TestMemoryRun: Run sweeps until its context ends, then returns nil.
func TestMemoryRun(t *testing.T) {
	t.Parallel()
	_, m := newMemory()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
}
