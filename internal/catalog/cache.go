package catalog

import "sync"

// Bounds of a Catalog's page cache. Distinct name filters are unbounded in number, so
// the bounds are what keeps a client from growing memory.
const (
	maxCachedPages = 2048
	maxCachedBytes = 16 << 20
)

// pageKey is what selects a list page.
type pageKey struct {
	list  listKey
	query Query
}

// pageCache holds the rendered list pages of one Catalog; a new catalog version starts
// with an empty cache. It holds at most maxCachedPages pages and maxCachedBytes of
// bodies (or a single page larger than that): a page that would exceed either bound
// first evicts pages chosen at random (Go's map order) until it fits, so a client
// sending many distinct filters costs the hot pages a re-render now and then, never
// all of them at once. The zero pageCache is ready; it is safe for concurrent use.
// See docs/decisions/0100-catalog-page-cache.md.
type pageCache struct {
	mu    sync.Mutex
	pages map[pageKey]*Page
	bytes int
}

func (c *pageCache) get(k pageKey) (*Page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[k]
	return p, ok
}

// add keeps p for k unless a page for k is there already (from a concurrent request
// for the same page).
func (c *pageCache) add(k pageKey, p *Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pages[k]; ok {
		return
	}
	if c.pages == nil {
		c.pages = map[pageKey]*Page{}
	}
	for old, q := range c.pages {
		if len(c.pages) < maxCachedPages && c.bytes+len(p.Body) <= maxCachedBytes {
			break
		}
		delete(c.pages, old)
		c.bytes -= len(q.Body)
	}
	c.pages[k] = p
	c.bytes += len(p.Body)
}

func (c *pageCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pages)
}
