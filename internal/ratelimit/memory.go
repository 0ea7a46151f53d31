package ratelimit

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"sync"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/lifecycle"
)

const shards = 64

// SweepInterval is how often Run drops the keys whose allowance is full again.
const SweepInterval = 10 * time.Second

// sweepEvery is how many requests a shard takes between two sweeps of its own, so
// that a flood of new keys between two of Run's sweeps does not grow it unchecked.
const sweepEvery = 4096

// minRebuild is the size below which a shard's map is never rebuilt: a small map costs
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
	// seeds make a key's digest: two 64-bit hashes under seeds that never leave the
	// process, so no one can choose a key whose digest is another's. (Redis needs a
	// digest every replica computes alike, SHA-256; here that would cost every
	// authenticated request a cryptographic hash of its key.)
	seeds  [2]maphash.Seed
	shards [shards]memShard
}

type memShard struct {
	mu sync.Mutex
	// tats holds each key's theoretical arrival time (Unix nanoseconds).
	tats map[digest]int64
	// peak is the most keys tats has held since it was made: a Go map keeps its
	// memory when keys are deleted, so a sweep that leaves far fewer makes a new one.
	peak int
	ops  int
}

// NewMemory returns an empty in-process limiter. Run its sweep (Run) for as long as it
// is used.
func NewMemory(now skygate.Clock) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	for i := range m.shards {
		m.shards[i].tats = map[digest]int64{}
	}
	return m
}

// digest returns key's digest.
func (m *Memory) digest(key string) (d digest) {
	binary.LittleEndian.PutUint64(d[:8], maphash.String(m.seeds[0], key))
	binary.LittleEndian.PutUint64(d[8:], maphash.String(m.seeds[1], key))
	return d
}

// shard returns the shard of a key's digest, whose bytes are uniform.
func (m *Memory) shard(k digest) *memShard { return &m.shards[k[0]%shards] }

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	interval, burst := int64(r.interval()), r.burst()
	k := m.digest(key)
	sh := m.shard(k)
	sh.mu.Lock()
	// The clock is read in the key's turn: a request that read it and then waited for
	// the lock behind later ones would be judged as if it came before their arrival
	// times, and refused once the wait exceeded the burst's span (200 ns at a billion
	// requests a second).
	now := m.now().UnixNano()
	tat, d := gcra(now, sh.tats[k], interval, burst)
	if d.Allowed {
		sh.tats[k] = tat
		sh.peak = max(sh.peak, len(sh.tats))
	}
	if sh.ops++; sh.ops >= sweepEvery {
		sh.sweep(now)
	}
	sh.mu.Unlock()
	return d, nil
}

// Refund implements Limiter.
func (m *Memory) Refund(_ context.Context, key string, r Rate) error {
	if !r.Enabled() {
		return nil
	}
	k := m.digest(key)
	sh := m.shard(k)
	sh.mu.Lock()
	if tat, ok := sh.tats[k]; ok {
		if tat, keep := refund(m.now().UnixNano(), tat, int64(r.interval())); keep {
			sh.tats[k] = tat
		} else {
			delete(sh.tats, k)
		}
	}
	sh.mu.Unlock()
	return nil
}

// Run sweeps every SweepInterval until ctx ends; it returns nil then.
func (m *Memory) Run(ctx context.Context) error {
	sweep := func(context.Context) error { m.Sweep(); return nil }
	return lifecycle.Every("rate limit sweep", SweepInterval, nil, sweep).Run(ctx)
}

// Sweep drops every key whose allowance is full again and gives back the memory of
// shards that have shrunk a lot. Run calls it on a timer.
func (m *Memory) Sweep() {
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		sh.sweep(m.now().UnixNano())
		sh.mu.Unlock()
	}
}

// sweep drops the keys whose allowance is full again: they carry no state, and keeping
// them would grow the map with every address ever seen. A map left with under a
// quarter of its peak is copied into one of its size, since a Go map does not shrink.
// The caller holds sh.mu.
func (sh *memShard) sweep(now int64) {
	sh.ops = 0
	for k, tat := range sh.tats {
		if tat <= now {
			delete(sh.tats, k)
		}
	}
	if sh.peak < minRebuild || len(sh.tats)*4 > sh.peak {
		return
	}
	tats := make(map[digest]int64, len(sh.tats))
	for k, tat := range sh.tats {
		tats[k] = tat
	}
	sh.tats, sh.peak = tats, len(tats)
}
