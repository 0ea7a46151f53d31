package catalog

import (
	"fmt"
	"sync"
	"testing"
)

func page(n int) *Page { return &Page{Body: make([]byte, n)} }

func key(i int) []byte { return queryKey(nil, KindLounge, 0, &Query{Limit: 1, Offset: i}) }

func TestPageCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newPageCache(3, 1<<20)
	for i := range 3 {
		c.put(key(i), page(1))
	}
	c.get(key(0)) // 1 is now the least recently used
	c.put(key(3), page(1))
	if _, ok := c.get(key(1)); ok {
		t.Error("key 1 survived eviction")
	}
	for _, i := range []int{0, 2, 3} {
		if _, ok := c.get(key(i)); !ok {
			t.Errorf("key %d was evicted", i)
		}
	}
	if c.len() != 3 {
		t.Errorf("len = %d", c.len())
	}
}

func TestPageCacheByteBudget(t *testing.T) {
	t.Parallel()
	c := newPageCache(100, 1000)
	c.put(key(0), page(300))
	c.put(key(1), page(200))
	c.put(key(2), page(200))
	c.put(key(3), page(200))
	c.put(key(4), page(200)) // 1100 bytes: key 0 goes
	if _, ok := c.get(key(0)); ok {
		t.Error("oldest page kept beyond the byte budget")
	}
	if c.bytes > 1000 {
		t.Errorf("bytes = %d", c.bytes)
	}
	c.put(key(9), page(251)) // over a quarter of the budget: not cached
	if _, ok := c.get(key(9)); ok {
		t.Error("oversized page cached")
	}
}

func TestPageCacheKeepsFirstPage(t *testing.T) {
	t.Parallel()
	c := newPageCache(10, 1000)
	a, b := page(1), page(1)
	c.put(key(0), a)
	c.put(key(0), b)
	if got, _ := c.get(key(0)); got != a || c.bytes != 1 {
		t.Errorf("second put replaced the page or counted bytes twice (%d)", c.bytes)
	}
}

func TestPageCacheConcurrent(t *testing.T) {
	t.Parallel()
	c := newPageCache(16, 1<<20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := key((g*7 + i) % 40)
				if _, ok := c.get(k); !ok {
					c.put(k, page(i%5+1))
				}
			}
		})
	}
	wg.Wait()
	if n := c.len(); n > 16 {
		t.Errorf("len = %d", n)
	}
	total := 0
	for n := c.root.next; n != &c.root; n = n.next {
		total += len(n.page.Body)
	}
	if total != c.bytes {
		t.Errorf("bytes = %d, list holds %d", c.bytes, total)
	}
}

// TestListCacheIsBounded: many distinct name filters never grow the cache past its bound.
func TestListCacheIsBounded(t *testing.T) {
	t.Parallel()
	c, err := Load(Seed())
	if err != nil {
		t.Fatal(err)
	}
	for i := range defaultCacheEntries + 100 {
		if _, err := c.Lounges("en", Query{Limit: 10, Name: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.cache.len(); n != defaultCacheEntries {
		t.Errorf("cache holds %d pages, want %d", n, defaultCacheEntries)
	}
}
