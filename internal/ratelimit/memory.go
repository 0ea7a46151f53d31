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
	mu   sync.Mutex
	tats map[string]int64
	ops  int
}

// NewMemory returns an empty in-process limiter.
func NewMemory(now skygate.Clock) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].tats = map[string]int64{}
	}
	return m
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, r Rate) (Decision, error) {
	if !r.Enabled() {
		return Decision{Allowed: true}, nil
	}
	now := m.now().UnixNano()
	sh := &m.shards[maphash.String(m.seed, key)%shards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	tat, d := gcra(now, sh.tats[key], int64(r.interval()), r.burst())
	sh.tats[key] = tat
	if sh.ops++; sh.ops >= 4096 {
		sh.ops = 0
		// Keys whose allowance is full again carry no state: drop them so the map
		// does not grow with every address ever seen.
		for k, t := range sh.tats {
			if t <= now {
				delete(sh.tats, k)
			}
		}
	}
	return d, nil
}
