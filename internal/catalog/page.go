package catalog

import (
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
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
}

// Item returns the page of one item of kind k in lang (one of skygate.Languages;
// anything else is en): the item as a bare object. An unknown id is CodeNotFound.
func (c *Catalog) Item(k Kind, lang, id string) (*Page, error) {
	p, ok := c.items[itemKey{k, skygate.Language(lang), id}]
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no %s with id %q", k, id)
	}
	return p, nil
}

// List returns a page of the items of kind k in lang (one of skygate.Languages;
// anything else is en) that match q. The body is
// {"data":[item…],"pagination":{"count","offset","total"}}. q must come from ParseQuery
// (or be DefaultQuery with changes within its limits); a limit or offset out of range
// is CodeBadRequest.
func (c *Catalog) List(k Kind, lang string, q Query) (*Page, error) {
	key := pageKey{listKey{k, skygate.Language(lang)}, q}
	entries, ok := c.lists[key.list]
	if !ok || q.Limit < 1 || q.Limit > MaxLimit || q.Offset < 0 || q.Offset > MaxOffset {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "invalid query")
	}
	if p, ok := c.pages.get(key); ok {
		return p, nil
	}
	data := []any{}
	total := 0
	for _, e := range entries {
		if !e.matches(q) {
			continue
		}
		if total >= q.Offset && len(data) < q.Limit {
			data = append(data, e.value)
		}
		total++
	}
	body, err := encode(skygate.NewList(data, q.Offset, total))
	if err != nil {
		return nil, err
	}
	p := &Page{
		Body:         body,
		ETag:         c.etag(fmt.Sprintf("list %d %q %d %d %q %q %q", k, key.list.lang, q.Limit, q.Offset, q.Name, q.IATA, q.Country)),
		LastModified: c.UpdatedAt(),
		Language:     key.list.lang,
	}
	c.pages.add(key, p)
	return p, nil
}

func (e *entry) matches(q Query) bool {
	return (q.IATA == "" || e.iata == q.IATA) &&
		(q.Country == "" || e.country == q.Country) &&
		(q.Name == "" || strings.Contains(e.name, q.Name))
}

// etag derives a strong entity tag from the catalog's content and the selection of the
// representation: its kind, language, and query or id, with strings quoted so that
// distinct selections are distinct texts.
func (c *Catalog) etag(selection string) string {
	h := sha256.New()
	h.Write(c.digest[:])
	_, _ = io.WriteString(h, selection) // a hash's Write never fails
	return fmt.Sprintf(`"%x"`, h.Sum(nil)[:16])
}
