package catalog

import (
	"fmt"
	"sync"
	"testing"
)

func page(n int) *Page { return &Page{Body: make([]byte, n)} }

func key(i int) pageKey { return pageKey{listKey{KindLounge, "en"}, Query{Limit: 1, Offset: i}} }

func TestPageCacheBoundsPages(t *testing.T) {
	t.Parallel()
	var c pageCache
	for i := range maxCachedPages {
		c.add(key(i), page(1))
	}
	if _, ok := c.get(key(0)); !ok || c.len() != maxCachedPages {
		t.Fatalf("a full cache holds %d pages, first kept %v", c.len(), ok)
	}
	c.add(key(maxCachedPages), page(1))
	if _, ok := c.get(key(maxCachedPages)); !ok || c.len() != maxCachedPages {
		t.Errorf("past the bound: %d pages (one evicted, not all), new page kept %v", c.len(), ok)
	}
}

func TestPageCacheBoundsBytes(t *testing.T) {
	t.Parallel()
	var c pageCache
	third := maxCachedBytes / 3
	for i := range 4 {
		c.add(key(i), page(third))
		if c.bytes > maxCachedBytes {
			t.Fatalf("after %d pages of %d bytes the cache holds %d bytes", i+1, third, c.bytes)
		}
	}
	if _, ok := c.get(key(3)); !ok {
		t.Error("the newest page was not kept")
	}
	if c.len() != 3 {
		t.Errorf("the cache holds %d pages; the fourth should have evicted one of three, not more", c.len())
	}
}

func TestPageCacheKeepsFirstPage(t *testing.T) {
	t.Parallel()
	var c pageCache
	a, b := page(1), page(1)
	c.add(key(0), a)
	c.add(key(0), b)
	if got, _ := c.get(key(0)); got != a || c.bytes != 1 {
		t.Errorf("second add replaced the page or counted bytes twice (%d)", c.bytes)
	}
}

func TestPageCacheConcurrent(t *testing.T) {
	t.Parallel()
	var c pageCache
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := key((g*7 + i) % 40)
				if _, ok := c.get(k); !ok {
					c.add(k, page(i%5+1))
				}
			}
		})
	}
	wg.Wait()
	total := 0
	for _, p := range c.pages {
		total += len(p.Body)
	}
	if total != c.bytes || c.len() > 40 {
		t.Errorf("bytes = %d, map holds %d in %d pages", c.bytes, total, c.len())
	}
}

// TestListCacheIsBounded: many distinct name filters never grow the cache past its bound.
func TestListCacheIsBounded(t *testing.T) {
	t.Parallel()
	c, err := Load(Seed())
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxCachedPages + 100 {
		if _, err := c.List(KindLounge, "en", Query{Limit: 10, Name: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		if n := c.pages.len(); n > maxCachedPages {
			t.Fatalf("cache holds %d pages, bound %d", n, maxCachedPages)
		}
	}
}
