package catalog

import "sync"

// The page cache of one Catalog is bounded by entries and by body bytes; the least
// recently used pages go first. Distinct name filters are unbounded in number, so the
// bound is what keeps an attacker from growing memory.
const (
	defaultCacheEntries = 2048
	defaultCacheBytes   = 16 << 20
)

type cacheKey struct {
	kind Kind
	lang uint8
	q    Query
}

type cacheNode struct {
	key        cacheKey
	page       *Page
	prev, next *cacheNode
}

// pageCache is an LRU map from cacheKey to *Page, safe for concurrent use.
type pageCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	m          map[cacheKey]*cacheNode
	root       cacheNode // root.next is the most recent, root.prev the least
}

func newPageCache(maxEntries, maxBytes int) *pageCache {
	c := &pageCache{maxEntries: maxEntries, maxBytes: maxBytes, m: make(map[cacheKey]*cacheNode)}
	c.root.next, c.root.prev = &c.root, &c.root
	return c
}

func (c *pageCache) get(k cacheKey) (*Page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.unlink(n)
	c.pushFront(n)
	return n.page, true
}

// put stores p unless a page for k is already there (a concurrent miss built the same
// page) or p alone is larger than a quarter of the byte budget.
func (c *pageCache) put(k cacheKey, p *Page) {
	size := len(p.Body)
	if size > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	n := &cacheNode{key: k, page: p}
	c.m[k] = n
	c.pushFront(n)
	c.bytes += size
	for len(c.m) > c.maxEntries || c.bytes > c.maxBytes {
		old := c.root.prev
		c.unlink(old)
		delete(c.m, old.key)
		c.bytes -= len(old.page.Body)
	}
}

func (c *pageCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *pageCache) unlink(n *cacheNode) {
	n.prev.next, n.next.prev = n.next, n.prev
}

func (c *pageCache) pushFront(n *cacheNode) {
	n.prev, n.next = &c.root, c.root.next
	c.root.next.prev = n
	c.root.next = n
}
