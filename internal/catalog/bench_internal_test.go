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

// BenchmarkLoungesPageCached is a repeated list request: one cache lookup.
func BenchmarkLoungesPageCached(b *testing.B) {
	c := mustLoadB(b)
	q := Query{Limit: 100, Name: Fold("Бизнес")}
	if _, err := c.Lounges("ru", q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Lounges("ru", q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoungesPageCachedParallel is BenchmarkLoungesPageCached from all CPUs.
func BenchmarkLoungesPageCachedParallel(b *testing.B) {
	c := mustLoadB(b)
	q := DefaultQuery
	if _, err := c.Lounges("en", q); err != nil { // warm the cache, as the serial benchmark does
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Lounges("en", q); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoungesPageFiltered is the cache-miss path with a name filter: filter the
// precomputed view, page it and join the pre-encoded items.
func BenchmarkLoungesPageFiltered(b *testing.B) {
	c := mustLoadB(b)
	for _, bc := range []struct {
		name string
		q    Query
	}{
		{"name", Query{Limit: 100, Name: Fold("зал")}},
		{"all", Query{Limit: 100}},
		{"iata", Query{Limit: 100, IATA: "DXB"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p := c.build(KindLounge, 1, bc.q); len(p.Body) == 0 {
					b.Fatal("empty body")
				}
			}
		})
	}
}

// BenchmarkItemPage is a single-item request.
func BenchmarkItemPage(b *testing.B) {
	c := mustLoadB(b)
	id := c.views[0][KindLounge][0].id
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Lounge("kk", id); err != nil {
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

// BenchmarkParseQuery parses a typical query string.
func BenchmarkParseQuery(b *testing.B) {
	raw := "limit=20&offset=40&name=%D0%91%D0%B8%D0%B7%D0%BD%D0%B5%D1%81&iata=tas"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseQuery(raw); err != nil {
			b.Fatal(err)
		}
	}
}
