package catalog_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// MustLoad loads data or fails the test.
func MustLoad(tb testing.TB, data []byte) *catalog.Catalog {
	tb.Helper()
	c, err := catalog.Load(data)
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return c
}

// MustSeedData decodes the embedded seed so tests can mutate a copy.
func MustSeedData(tb testing.TB) *skygate.CatalogData {
	tb.Helper()
	d, err := catalog.Decode(catalog.Seed())
	if err != nil {
		tb.Fatalf("Decode(seed): %v", err)
	}
	return d
}

// MustMarshal encodes v or fails the test.
func MustMarshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// listBody is the response body of a list.
type listBody[T any] struct {
	Data       []T `json:"data"`
	Pagination struct {
		Count  int `json:"count"`
		Offset int `json:"offset"`
		Total  int `json:"total"`
	} `json:"pagination"`
}

// MustList fetches and decodes a list page.
func MustList[T any](tb testing.TB, c *catalog.Catalog, k catalog.Kind, lang string, q catalog.Query) (listBody[T], *catalog.Page) {
	tb.Helper()
	p, err := c.List(k, lang, q)
	if err != nil {
		tb.Fatalf("List(%v, %s, %+v): %v", k, lang, q, err)
	}
	var b listBody[T]
	if err := json.Unmarshal(p.Body, &b); err != nil {
		tb.Fatalf("list body: %v\n%s", err, p.Body)
	}
	return b, p
}

// query returns DefaultQuery changed by f.
func query(f func(*catalog.Query)) catalog.Query {
	q := catalog.DefaultQuery
	if f != nil {
		f(&q)
	}
	return q
}

var fixedTime = time.Date(2026, 5, 4, 12, 30, 45, 123, time.UTC)
