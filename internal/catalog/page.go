package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// Page is a ready response: the JSON body and its validators. Pages are shared between
// requests and must not be modified.
type Page struct {
	Body []byte
	// ETag is a strong entity tag, quoted, for the ETag header.
	ETag string
	// LastModified is when the catalog document was stored, in whole seconds; zero when
	// unknown (the header is then omitted).
	LastModified time.Time
	// Language is the language of Body, for Content-Language.
	Language string

	headerOnce             sync.Once
	etagValue, lengthValue []string
}

// HeaderValues returns the values of the page's ETag and Content-Length headers, made
// once per page: a response may share them (net/http never modifies header values),
// so serving a cached page allocates none. A Page must not be copied.
func (p *Page) HeaderValues() (etag, contentLength []string) {
	p.headerOnce.Do(func() {
		p.etagValue = []string{p.ETag}
		p.lengthValue = []string{strconv.Itoa(len(p.Body))}
	})
	return p.etagValue, p.lengthValue
}

// Lounges returns a page of lounges in lang (one of skygate.Languages; anything else is
// en) for q. The body is {"data":[Lounge…],"pagination":{"count","offset","total"}}.
func (c *Catalog) Lounges(lang string, q Query) (*Page, error) {
	return c.List(KindLounge, lang, q)
}

// FastTracks is Lounges for fast-tracks.
func (c *Catalog) FastTracks(lang string, q Query) (*Page, error) {
	return c.List(KindFastTrack, lang, q)
}

// Lounge returns one lounge as a bare object, or CodeNotFound.
func (c *Catalog) Lounge(lang, id string) (*Page, error) { return c.Item(KindLounge, lang, id) }

// FastTrack returns one fast-track as a bare object, or CodeNotFound.
func (c *Catalog) FastTrack(lang, id string) (*Page, error) { return c.Item(KindFastTrack, lang, id) }

// Item returns the page of one item of kind k, or CodeNotFound for an unknown id.
func (c *Catalog) Item(k Kind, lang, id string) (*Page, error) {
	if k >= numKinds {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no such %s", k)
	}
	pages := c.items[k][id]
	if pages == nil {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no %s with id %q", k, id)
	}
	return pages[langIndex(lang)], nil
}

// List returns a page of items of kind k. A repeated query is served from the page
// cache without encoding or allocating. q must come from ParseQuery (or be DefaultQuery
// with changes within its limits); a Limit outside 1–MaxLimit is CodeBadRequest.
func (c *Catalog) List(k Kind, lang string, q Query) (*Page, error) {
	if q.Limit < 1 || q.Limit > MaxLimit || q.Offset < 0 || q.Offset > MaxOffset || k >= numKinds {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "invalid query")
	}
	li := langIndex(lang)
	var buf [64]byte
	key := queryKey(buf[:0], k, li, &q)
	if p, ok := c.cache.get(key); ok {
		return p, nil
	}
	p := c.build(k, li, q)
	c.cache.put(key, p)
	return p, nil
}

// maxRawKey bounds the raw query strings ListRaw keys pages by: the cache bounds pages'
// bytes, not keys', and a longer query is rare enough to be parsed each time.
const maxRawKey = 256

// ListRaw is ParseQuery and List for the raw query string of a request (the URL's
// RawQuery), except that a raw query seen before finds its page in the cache without
// being parsed again. Its errors are ParseQuery's and List's.
func (c *Catalog) ListRaw(k Kind, lang, rawQuery string) (*Page, error) {
	var buf [3 + maxRawKey]byte
	var key []byte // nil: not cached by its raw query
	if len(rawQuery) <= maxRawKey && k < numKinds {
		key = append(append(buf[:0], 'r', byte(k), byte(langIndex(lang))), rawQuery...)
		if p, ok := c.cache.get(key); ok {
			return p, nil
		}
	}
	q, err := ParseQuery(rawQuery)
	if err != nil {
		return nil, err
	}
	p, err := c.List(k, lang, q)
	if err != nil {
		return nil, err
	}
	if key != nil {
		c.cache.put(key, p)
	}
	return p, nil
}

var (
	listHead   = []byte(`{"data":[`)
	listMiddle = []byte(`],"pagination":{"count":`)
)

// build filters the view, pages it and joins the pre-encoded items.
func (c *Catalog) build(k Kind, li int, q Query) *Page {
	view := c.views[li][k]
	var selected [][]byte
	size, total := 0, 0
	for i := range view {
		e := &view[i]
		if !e.matches(&q) {
			continue
		}
		if total >= q.Offset && len(selected) < q.Limit {
			selected = append(selected, e.body)
			size += len(e.body) + 1
		}
		total++
	}
	b := make([]byte, 0, size+len(listHead)+len(listMiddle)+64)
	b = append(b, listHead...)
	for i, item := range selected {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	b = append(b, listMiddle...)
	b = strconv.AppendInt(b, int64(len(selected)), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(q.Offset), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, "}}"...)
	return &Page{
		Body:         b,
		ETag:         c.etag(k, li, "list", strconv.Itoa(q.Limit), strconv.Itoa(q.Offset), q.Name, q.IATA, q.Country),
		LastModified: c.updatedAt,
		Language:     skygate.Languages[li],
	}
}

func (e *entry) matches(q *Query) bool {
	return (q.IATA == "" || e.iata == q.IATA) &&
		(q.Country == "" || e.country == q.Country) &&
		(q.Name == "" || strings.Contains(e.name, q.Name))
}

// etag derives a strong entity tag from the catalog content and what selects the
// representation (kind, language, query or id). Parts are length-prefixed, so distinct
// inputs never hash the same bytes.
func (c *Catalog) etag(k Kind, lang int, parts ...string) string {
	h := sha256.New()
	h.Write(c.digest[:])
	var head [2]byte
	head[0], head[1] = byte(k), byte(lang)
	h.Write(head[:])
	for _, p := range parts {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var sum [sha256.Size]byte
	tag := make([]byte, 0, 34)
	tag = append(tag, '"')
	tag = hex.AppendEncode(tag, h.Sum(sum[:0])[:16])
	tag = append(tag, '"')
	return string(tag)
}
