package oauth

import (
	"strings"
	"sync"
)

// evictScan bounds the work of an insert into a full cache.
const evictScan = 16

// tokenCache remembers tokens that verified, until they expire. It holds at most size
// tokens: an insert into a full cache first drops the expired entries among a few it
// looks at and, when none has expired, drops one of them anyway. Losing an entry only
// costs one more signature check.
type tokenCache struct {
	size    int
	mu      sync.RWMutex
	entries map[string]*cacheEntry // by the whole token
}

// cacheEntry is immutable once stored.
type cacheEntry struct {
	claims *Claims
	// deadline is the Unix second after which the token is rejected (exp + leeway).
	deadline int64
	// kid is the signing key, which must still be known on a hit.
	kid string
}

// newTokenCache returns a cache for size tokens, or nil (no caching) for size ≤ 0.
func newTokenCache(size int) *tokenCache {
	if size <= 0 {
		return nil
	}
	return &tokenCache{size: size, entries: make(map[string]*cacheEntry)}
}

// get returns the entry of token, or nil.
func (c *tokenCache) get(token string) *cacheEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[token]
}

// put stores e for token; now is the current Unix second.
func (c *tokenCache) put(token string, e *cacheEntry, now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[token]; !ok && len(c.entries) >= c.size {
		c.evict(now)
	}
	// The key outlives the request, whose memory token may belong to.
	c.entries[strings.Clone(token)] = e
}

// evict makes room for one entry. Map order is random: a cheap random sample.
func (c *tokenCache) evict(now int64) {
	var victim string
	n, freed := 0, false
	for token, e := range c.entries {
		if e.deadline < now {
			delete(c.entries, token)
			freed = true
		} else if victim == "" {
			victim = token
		}
		if n++; n == evictScan {
			break
		}
	}
	if !freed {
		delete(c.entries, victim)
	}
}

// remove drops the entry of token if it is still e.
func (c *tokenCache) remove(token string, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[token] == e {
		delete(c.entries, token)
	}
}

// len returns the number of entries; for tests.
func (c *tokenCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
