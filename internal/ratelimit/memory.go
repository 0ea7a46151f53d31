package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

const shards = 64

// Memory is an in-process Limiter. Each replica counts on its own, so with N replicas
// a key may get up to N times its rate; use Redis to share limits.
type Memory struct {
	now    skygate.Clock
	seed   maphash.Seed
	shards [shards]memShard
}

type memShard struct {
	mu sync.Mutex
	// tats holds each key's theoretical arrival time behind a pointer, so that a
	// request for a known key updates it in place: one map lookup instead of a lookup
	// and an assignment, which hashed and probed the key a second time.
	tats map[string]*int64
	ops  int
}

// NewMemory returns an empty in-process limiter.
func NewMemory(now skygate.Clock) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].tats = map[string]*int64{}
	}
	return m
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	interval, burst := int64(r.interval()), r.burst()
	sh := &m.shards[maphash.String(m.seed, key)%shards]
	sh.mu.Lock()
	// The clock is read in the key's turn: a request that read it and then waited for
	// the lock behind later ones would be judged as if it came before their arrival
	// times, and refused once the wait exceeded the burst's span (200 ns at a billion
	// requests a second).
	now := m.now().UnixNano()
	tat := sh.tats[key]
	if tat == nil {
		tat = new(int64)
		sh.tats[key] = tat
	}
	var d Decision
	*tat, d = gcra(now, *tat, interval, burst)
	if sh.ops++; sh.ops >= 4096 {
		sh.ops = 0
		sh.sweep(now)
	}
	sh.mu.Unlock()
	return d, nil
}

// sweep drops the keys whose allowance is full again: they carry no state, and keeping
// them would grow the map with every address ever seen.
func (sh *memShard) sweep(now int64) {
	for k, tat := range sh.tats {
		if *tat <= now {
			delete(sh.tats, k)
		}
	}
}
