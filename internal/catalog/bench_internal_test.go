package catalog

import (
	"testing"
)

func mustLoadB(b *testing.B) *Catalog {
	b.Helper()
	c, err := Load(Seed())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkListCached is a repeated list request: one cache lookup.
func BenchmarkListCached(b *testing.B) {
	c := mustLoadB(b)
	q := Query{Limit: 100, Name: Fold("Бизнес")}
	if _, err := c.List(KindLounge, "ru", q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.List(KindLounge, "ru", q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListCachedParallel is BenchmarkListCached from all CPUs.
func BenchmarkListCachedParallel(b *testing.B) {
	c := mustLoadB(b)
	q := DefaultQuery
	if _, err := c.List(KindLounge, "en", q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.List(KindLounge, "en", q); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkListRendered is a list request that misses the cache: filter, page and
// encode. "scenario" is the load harness's catalog request
// (/v2/catalog/fast-tracks?limit=2&iata=TAS in ru).
func BenchmarkListRendered(b *testing.B) {
	c := mustLoadB(b)
	for _, bc := range []struct {
		name string
		kind Kind
		q    Query
	}{
		{"scenario", KindFastTrack, Query{Limit: 2, IATA: "TAS"}},
		{"name", KindLounge, Query{Limit: 100, Name: Fold("зал")}},
		{"all", KindLounge, Query{Limit: 100}},
		{"iata", KindLounge, Query{Limit: 100, IATA: "DXB"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.pages = pageCache{}
				if p, err := c.List(bc.kind, "ru", bc.q); err != nil || len(p.Body) == 0 {
					b.Fatal("empty body", err)
				}
			}
		})
	}
}

// BenchmarkItem is a single-item request.
func BenchmarkItem(b *testing.B) {
	c := mustLoadB(b)
	id := c.lists[listKey{KindLounge, "en"}][0].id
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Item(KindLounge, "kk", id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is the cost of a new catalog version: decode, validate, localize, encode.
func BenchmarkLoad(b *testing.B) {
	data := Seed()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseQuery parses a query with a name filter, and the load harness's.
func BenchmarkParseQuery(b *testing.B) {
	for _, bc := range []struct{ name, raw string }{
		{"name", "limit=20&offset=40&name=%D0%91%D0%B8%D0%B7%D0%BD%D0%B5%D1%81&iata=tas"},
		{"scenario", "limit=2&iata=TAS"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseQuery(bc.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
