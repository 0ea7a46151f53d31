package oauth

import (
	"hash/maphash"
	"sync"
)

// cacheShards spreads the verified-token cache over independent locks so that
// concurrent requests rarely touch the same one.
const cacheShards = 64

// evictScan bounds the work of an insert into a full shard.
const evictScan = 16

// tokenCache remembers tokens that verified, until they expire. It is bounded: an
// insert into a full shard first drops expired entries among a few it looks at and,
// when none has expired, drops one of them anyway. Losing an entry only costs one
// more signature check.
type tokenCache struct {
	seed     maphash.Seed
	perShard int
	shards   [cacheShards]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string]*cacheEntry
	_  [64]byte // keep neighbouring shards' locks off one cache line
}

// cacheEntry is immutable once stored.
type cacheEntry struct {
	claims *Claims
	// deadline is the Unix second after which the token is rejected (exp + leeway).
	deadline int64
	// kid is the signing key, which must still be known on a hit.
	kid string
}

// newTokenCache returns a cache for about size tokens, or nil (no caching) for size 0.
func newTokenCache(size int) *tokenCache {
	if size <= 0 {
		return nil
	}
	c := &tokenCache{seed: maphash.MakeSeed(), perShard: max(1, size/cacheShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[string]*cacheEntry)
	}
	return c
}

func (c *tokenCache) shard(token string) *cacheShard {
	// The signature at the end of the token is random, so its last bytes spread
	// tokens evenly and hashing them is cheaper than hashing the whole token.
	tail := token[max(0, len(token)-16):]
	return &c.shards[maphash.String(c.seed, tail)%cacheShards]
}

func (c *tokenCache) get(token string) *cacheEntry {
	s := c.shard(token)
	s.mu.RLock()
	e := s.m[token]
	s.mu.RUnlock()
	return e
}

// put stores e for token; now is the current Unix second.
func (c *tokenCache) put(token string, e *cacheEntry, now int64) {
	s := c.shard(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[token]; ok || len(s.m) < c.perShard {
		s.m[token] = e
		return
	}
	var victim string
	n, freed := 0, false
	for k, old := range s.m { // map order is random: a cheap random sample
		if old.deadline < now {
			delete(s.m, k)
			freed = true
		} else if victim == "" {
			victim = k
		}
		if n++; n == evictScan {
			break
		}
	}
	if !freed {
		delete(s.m, victim)
	}
	s.m[token] = e
}

func (c *tokenCache) remove(token string) {
	s := c.shard(token)
	s.mu.Lock()
	delete(s.m, token)
	s.mu.Unlock()
}

// len returns the number of entries; for tests.
func (c *tokenCache) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}
