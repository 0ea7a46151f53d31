package catalog

import (
	"encoding/binary"
	"sync"
)

// The page cache of one Catalog is bounded by entries and by body bytes; the least
// recently used pages go first. Distinct name filters are unbounded in number, so the
// bound is what keeps an attacker from growing memory.
const (
	defaultCacheEntries = 2048
	defaultCacheBytes   = 16 << 20
)

// A page's cache key is a byte string: 'q', the kind, the language index and the
// Query's fields (queryKey), or 'r', the kind, the language index and the raw query
// string as a request sent it (ListRaw). A string key hashes as one run of bytes, where
// a struct of a Query's strings and numbers went through the runtime's generic hash.

// queryKey appends the key of q's page to b. The strings are length-prefixed, so no
// two queries share a key.
func queryKey(b []byte, k Kind, li int, q *Query) []byte {
	b = append(b, 'q', byte(k), byte(li))
	b = binary.AppendUvarint(b, uint64(q.Limit))
	b = binary.AppendUvarint(b, uint64(q.Offset))
	for _, s := range [...]string{q.Name, q.IATA, q.Country} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

type cacheNode struct {
	key        string
	page       *Page
	prev, next *cacheNode
}

// pageCache is an LRU map from a key to a *Page, safe for concurrent use.
type pageCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	m          map[string]*cacheNode
	root       cacheNode // root.next is the most recent, root.prev the least
}

func newPageCache(maxEntries, maxBytes int) *pageCache {
	c := &pageCache{maxEntries: maxEntries, maxBytes: maxBytes, m: make(map[string]*cacheNode)}
	c.root.next, c.root.prev = &c.root, &c.root
	return c
}

func (c *pageCache) get(k []byte) (*Page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[string(k)] // the conversion in a map index does not allocate
	if !ok {
		return nil, false
	}
	c.unlink(n)
	c.pushFront(n)
	return n.page, true
}

// put stores p unless a page for k is already there (a concurrent miss built the same
// page) or p alone is larger than a quarter of the byte budget. A page stored under two
// keys counts twice against the budget.
func (c *pageCache) put(k []byte, p *Page) {
	size := len(p.Body)
	if size > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(k)]; ok {
		return
	}
	n := &cacheNode{key: string(k), page: p}
	c.m[n.key] = n
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
