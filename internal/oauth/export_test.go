package oauth

import (
	"crypto/ecdsa"
	"fmt"
	"testing"
)

// PrivateKey returns the decrypted private key with kid, for tests that sign tokens
// with other libraries.
func (m *KeyManager) PrivateKey(kid string) *ecdsa.PrivateKey {
	if k := m.set.Load().byKID[kid]; k != nil {
		return k.priv
	}
	return nil
}

// CurrentKID returns the kid that signs at the KeyManager's current time.
func (m *KeyManager) CurrentKID() string {
	if k := m.set.Load().signer(m.clock()); k != nil {
		return k.kid
	}
	return ""
}

// Len returns the number of cached applications.
func (c *ApplicationCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// SetMax changes the cache's bound.
func (c *ApplicationCache) SetMax(n int) { c.max = n }

// CacheLen returns the number of cached verifications.
func (v *Verifier) CacheLen() int {
	if v.cache == nil {
		return 0
	}
	return v.cache.len()
}

func TestTokenCacheBounded(t *testing.T) {
	t.Parallel()
	c := newTokenCache(64)
	for i := range 10_000 {
		c.put(fmt.Sprintf("token-%d", i), &cacheEntry{deadline: 100}, 50)
	}
	if n := c.len(); n > 64 {
		t.Fatalf("cache holds %d entries, bound %d", n, 64)
	}
	if c.get("token-9999") == nil {
		t.Error("the latest entry was evicted")
	}
}

// TestTokenCacheEvictsExpiredFirst: when the cache is full of expired entries, inserts
// drop those and keep the live ones. With size == evictScan every insert into a full
// cache looks at all of it, so the outcome is deterministic.
func TestTokenCacheEvictsExpiredFirst(t *testing.T) {
	t.Parallel()
	c := newTokenCache(evictScan)
	live := "live-token"
	c.put(live, &cacheEntry{deadline: 1000}, 0)
	for i := range 5000 {
		c.put(fmt.Sprintf("dead-%d", i), &cacheEntry{deadline: 10}, 0)
	}
	// Time passes: everything but live has expired. New inserts evict the dead ones.
	for i := range 5000 {
		c.put(fmt.Sprintf("new-%d", i), &cacheEntry{deadline: 1000}, 500)
	}
	if c.get(live) == nil {
		// The live entry may only go once the cache holds no expired entries to drop.
		for _, e := range c.entries {
			if e.deadline < 500 {
				t.Fatal("a live entry was evicted while expired ones remained")
			}
		}
	}
}

func TestTokenCacheDisabled(t *testing.T) {
	t.Parallel()
	if newTokenCache(0) != nil || newTokenCache(-1) != nil {
		t.Fatal("a cache of size <= 0 exists")
	}
}
