package ratelimit

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/lifecycle"
)

// SweepInterval is how often Run drops the keys whose allowance is full again.
const SweepInterval = 10 * time.Second

// sweepEvery is how many requests Allow takes at least between two sweeps of its own,
// so that a flood of new keys between two of Run's sweeps does not grow the map
// unchecked; once the map holds more keys, it waits for as many requests, so that a
// sweep costs each request a bounded share.
const sweepEvery = 4096

// minRebuild is the size below which the map is never rebuilt: a small map costs
// little, and rebuilding it would cost more than it gives back.
const minRebuild = 1024

// Memory is an in-process Limiter. Each replica counts on its own, so with N replicas
// a key may get up to N times its rate; use Redis to share limits.
//
// It keeps one entry of a fixed size per key whose allowance is not full (see
// Limiter), and Run sweeps the others away on a timer and gives the memory back, so a
// flood of made-up keys leaves the heap where it was once it is over.
type Memory struct {
	now skygate.Clock

	mu sync.Mutex
	// tats holds each key's theoretical arrival time (Unix nanoseconds).
	tats map[digest]int64
	// peak is the most keys tats has held since it was made: a Go map keeps its
	// memory when keys are deleted, so a sweep that leaves far fewer makes a new one.
	peak int
	// ops counts the requests since the last sweep.
	ops int
}

// NewMemory returns an empty in-process limiter. Run its sweep (Run) for as long as it
// is used.
func NewMemory(now skygate.Clock) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tats: map[digest]int64{}}
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	k := digestOf(key)
	m.mu.Lock()
	defer m.mu.Unlock()
	// The clock is read in the lock: a request that read it and then waited for the
	// lock behind later ones would be judged as if it came before their arrival times,
	// and refused once the wait exceeded the burst's span.
	now := m.now().UnixNano()
	tat, d := gcra(now, m.tats[k], int64(r.interval()), r.burst())
	if d.Allowed {
		m.tats[k] = tat
		m.peak = max(m.peak, len(m.tats))
	}
	if m.ops++; m.ops >= max(sweepEvery, len(m.tats)) {
		m.sweep(now)
	}
	return d, nil
}

// Refund implements Limiter: the key's arrival time moves one interval earlier, and
// the key is dropped (full) once that is not in the future.
func (m *Memory) Refund(_ context.Context, key string, r Rate) error {
	if !r.Enabled() {
		return nil
	}
	k := digestOf(key)
	m.mu.Lock()
	defer m.mu.Unlock()
	if tat, ok := m.tats[k]; ok {
		if tat -= int64(r.interval()); tat > m.now().UnixNano() {
			m.tats[k] = tat
		} else {
			delete(m.tats, k)
		}
	}
	return nil
}

// Run sweeps every SweepInterval until ctx ends; it returns nil then.
func (m *Memory) Run(ctx context.Context) error {
	sweep := func(context.Context) error { m.Sweep(); return nil }
	return lifecycle.Every("rate limit sweep", SweepInterval, nil, sweep).Run(ctx)
}

// Sweep drops every key whose allowance is full again and gives back the memory of
// the map once it has shrunk a lot. Run calls it on a timer.
func (m *Memory) Sweep() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.now().UnixNano())
}

// sweep drops the keys whose allowance is full again: they carry no state, and keeping
// them would grow the map with every address ever seen. A map left with under a
// quarter of its peak is copied into one of its size, since a Go map does not shrink.
// The caller holds m.mu.
func (m *Memory) sweep(now int64) {
	m.ops = 0
	maps.DeleteFunc(m.tats, func(_ digest, tat int64) bool { return tat <= now })
	if m.peak >= minRebuild && len(m.tats)*4 <= m.peak {
		tats := make(map[digest]int64, len(m.tats)) // not maps.Clone, which keeps the size
		maps.Copy(tats, m.tats)
		m.tats, m.peak = tats, len(tats)
	}
}
