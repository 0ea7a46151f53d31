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
func (c *ApplicationCache) Len() int { return int(c.size.Load()) }

// SetMax changes the cache's bound.
func (c *ApplicationCache) SetMax(n int) { c.max = int64(n) }

// CacheLen returns the number of cached verifications.
func (v *Verifier) CacheLen() int {
	if v.cache == nil {
		return 0
	}
	return v.cache.len()
}

func TestTokenCacheBounded(t *testing.T) {
	t.Parallel()
	c := newTokenCache(cacheShards * 4)
	for i := range 10_000 {
		c.put(&cacheEntry{token: fmt.Sprintf("token-%d", i), deadline: 100}, 50)
	}
	if n := c.len(); n > cacheShards*4 {
		t.Fatalf("cache holds %d entries, bound %d", n, cacheShards*4)
	}
	if c.get("token-9999") == nil {
		t.Error("the latest entry was evicted")
	}
}

// TestTokenCacheEvictsExpiredFirst: when a shard is full of expired entries, inserts
// drop those and keep the live ones. With perShard == evictScan every insert into a
// full shard looks at the whole shard, so the outcome is deterministic.
func TestTokenCacheEvictsExpiredFirst(t *testing.T) {
	t.Parallel()
	c := newTokenCache(cacheShards * evictScan)
	live := "live-token"
	c.put(&cacheEntry{token: live, deadline: 1000}, 0)
	for i := range 5000 {
		c.put(&cacheEntry{token: fmt.Sprintf("dead-%d", i), deadline: 10}, 0)
	}
	// Time passes: everything but live has expired. New inserts evict the dead ones.
	for i := range 5000 {
		c.put(&cacheEntry{token: fmt.Sprintf("new-%d", i), deadline: 1000}, 500)
	}
	if c.get(live) == nil {
		// The live entry may only go once its shard holds no expired entries to drop.
		s := c.shard(cacheKey(live))
		for _, e := range s.m {
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
