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

// keyLen is how many of a token's last bytes key the cache: 24 base64url characters of
// the signature, 144 bits that differ between any two tokens the issuer signs. A map
// keyed by the whole token hashed all of its 600–800 bytes on every request, a
// hundred nanoseconds on the catalog's hot path; the entry keeps the whole token,
// which a hit must equal.
const keyLen = 24

// tokenCache remembers tokens that verified, until they expire. It is bounded: an
// insert into a full shard first drops expired entries among a few it looks at and,
// when none has expired, drops one of them anyway. Losing an entry only costs one
// more signature check.
//
// Entries are keyed by the token's last keyLen bytes and hold the whole token. A
// token that shares those bytes with a cached one (a forgery that copies a real
// token's signature) misses, and neither its lookup nor its failed verification
// disturbs the entry.
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
	// token is the whole token, which a lookup must equal.
	token  string
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

// cacheKey returns the part of token that keys the cache: its last keyLen bytes, where
// the signature ends.
func cacheKey(token string) string { return token[max(0, len(token)-keyLen):] }

// shard returns the shard of key. The signature is random, so its bytes spread tokens
// evenly.
func (c *tokenCache) shard(key string) *cacheShard {
	return &c.shards[maphash.String(c.seed, key)%cacheShards]
}

// get returns the entry of token, or nil.
func (c *tokenCache) get(token string) *cacheEntry {
	key := cacheKey(token)
	s := c.shard(key)
	s.mu.RLock()
	e := s.m[key]
	s.mu.RUnlock()
	if e == nil || e.token != token {
		return nil
	}
	return e
}

// put stores e, replacing any entry with the same key; now is the current Unix second.
// The cache keeps e.token, which the caller must not share with a request's memory.
func (c *tokenCache) put(e *cacheEntry, now int64) {
	key := cacheKey(e.token)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok || len(s.m) < c.perShard {
		s.m[key] = e
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
	s.m[key] = e
}

// remove drops e, unless another entry has taken its key meanwhile.
func (c *tokenCache) remove(e *cacheEntry) {
	key := cacheKey(e.token)
	s := c.shard(key)
	s.mu.Lock()
	if s.m[key] == e {
		delete(s.m, key)
	}
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
