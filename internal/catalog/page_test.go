package catalog_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

func TestLanguages(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	tas := func(lang string) skygate.Lounge {
		b, p := MustList[skygate.Lounge](t, c, catalog.KindLounge, lang, query(func(q *catalog.Query) { q.IATA = "TAS"; q.Limit = 1 }))
		if want := lang; want == "xx" {
			if p.Language != "en" {
				t.Errorf("Language for %q = %q, want en", lang, p.Language)
			}
		} else if p.Language != want {
			t.Errorf("Language = %q, want %q", p.Language, want)
		}
		return b.Data[0]
	}
	for lang, city := range map[string]string{"en": "Tashkent", "ru": "Ташкент", "uz": "Toshkent", "kk": "Ташкент", "xx": "Tashkent"} {
		if l := tas(lang); l.Location.City != city || l.Hub.Location.City != city {
			t.Errorf("%s: city %q / %q, want %q", lang, l.Location.City, l.Hub.Location.City, city)
		}
	}
	if en, uz := tas("en"), tas("uz"); en.Name == uz.Name || en.Description == uz.Description || en.Amenities[0].Name == uz.Amenities[0].Name && en.Amenities[1].Name == uz.Amenities[1].Name {
		t.Errorf("en and uz texts are equal: %q", en.Name)
	}
}

func TestETag(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	etag := func(k catalog.Kind, lang string, q catalog.Query) string {
		t.Helper()
		p, err := c.List(k, lang, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.ETag) != 34 || p.ETag[0] != '"' || p.ETag[33] != '"' {
			t.Fatalf("ETag %s is not a strong quoted tag", p.ETag)
		}
		return p.ETag
	}
	base := etag(catalog.KindLounge, "en", catalog.DefaultQuery)
	distinct := map[string]string{"base": base}
	for name, tag := range map[string]string{
		"language":   etag(catalog.KindLounge, "ru", catalog.DefaultQuery),
		"kind":       etag(catalog.KindFastTrack, "en", catalog.DefaultQuery),
		"limit":      etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Limit = 5 })),
		"offset":     etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Offset = 5 })),
		"name":       etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Name = "plaza" })),
		"iata":       etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.IATA = "LHR" })),
		"country":    etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Country = "GB" })),
		"name shift": etag(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Name = "GB" })),
	} {
		for other, t2 := range distinct {
			if tag == t2 {
				t.Errorf("ETag of %s equals that of %s", name, other)
			}
		}
		distinct[name] = tag
	}
	if again := etag(catalog.KindLounge, "en", catalog.DefaultQuery); again != base {
		t.Errorf("ETag changed between calls")
	}
	// The same content loaded again, even as a new version, keeps its ETags; other content
	// changes them.
	c2, err := catalog.LoadDocument(&skygate.CatalogDocument{Data: catalog.Seed(), Version: 7, UpdatedAt: fixedTime})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := c2.List(catalog.KindLounge, "en", catalog.DefaultQuery); p.ETag != base {
		t.Errorf("same content, new version: ETag %s, want %s", p.ETag, base)
	}
	d := MustSeedData(t)
	d.Lounges[0].IsActive = !d.Lounges[0].IsActive
	c3 := MustLoad(t, MustMarshal(t, d))
	if p, _ := c3.List(catalog.KindLounge, "en", catalog.DefaultQuery); p.ETag == base {
		t.Errorf("changed content kept ETag %s", base)
	}
}

func TestLastModified(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	p, _ := c.List(catalog.KindLounge, "en", catalog.DefaultQuery)
	if !p.LastModified.IsZero() {
		t.Errorf("Load: LastModified = %v, want zero", p.LastModified)
	}
	c, err := catalog.LoadDocument(&skygate.CatalogDocument{Data: catalog.Seed(), Version: 3, UpdatedAt: fixedTime.In(time.FixedZone("X", 3600))})
	if err != nil {
		t.Fatal(err)
	}
	want := fixedTime.Truncate(time.Second)
	p, _ = c.List(catalog.KindFastTrack, "kk", catalog.DefaultQuery)
	if !p.LastModified.Equal(want) || p.LastModified.Location() != time.UTC {
		t.Errorf("list LastModified = %v, want %v UTC", p.LastModified, want)
	}
	if c.Version() != 3 || c.Summary().Version != 3 {
		t.Errorf("Version = %d", c.Version())
	}
	d := MustSeedData(t)
	p, err = c.Item(catalog.KindLounge, "ru", d.Lounges[0].ID)
	if err != nil || !p.LastModified.Equal(want) {
		t.Errorf("item LastModified = %v, %v", p.LastModified, err)
	}
}

func TestItems(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	d := MustSeedData(t)
	l := d.Lounges[0]
	p, err := c.Item(catalog.KindLounge, "uz", l.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got skygate.Lounge
	if err := json.Unmarshal(p.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != l.ID || got.Name != l.Name.UZ || p.Language != "uz" || got.Hub.ID != l.HubID {
		t.Errorf("Lounge = %+v", got)
	}
	pe, _ := c.Item(catalog.KindLounge, "en", l.ID)
	if pe.ETag == p.ETag {
		t.Errorf("item ETag does not depend on the language")
	}
	f := d.FastTracks[0]
	if p, err := c.Item(catalog.KindFastTrack, "kk", f.ID); err != nil || p.Language != "kk" {
		t.Errorf("FastTrack: %v", err)
	}
	for _, tt := range []struct {
		name string
		get  func() (*catalog.Page, error)
	}{
		{"unknown lounge", func() (*catalog.Page, error) {
			return c.Item(catalog.KindLounge, "en", "00000000-0000-0000-0000-000000000000")
		}},
		{"fast-track id as lounge", func() (*catalog.Page, error) { return c.Item(catalog.KindLounge, "en", f.ID) }},
		{"lounge id as fast-track", func() (*catalog.Page, error) { return c.Item(catalog.KindFastTrack, "en", l.ID) }},
		{"upper-case id", func() (*catalog.Page, error) { return c.Item(catalog.KindFastTrack, "en", "A"+f.ID[1:]) }},
	} {
		if _, err := tt.get(); !skygate.IsCode(err, skygate.CodeNotFound) {
			t.Errorf("%s: error %v, want NotFound", tt.name, err)
		}
	}
	ft, err := c.LocalizedFastTrack("ru", f.ID)
	if err != nil || ft.Name != f.Name.RU || ft.Hub.Timezone == "" {
		t.Errorf("LocalizedFastTrack = %+v, %v", ft, err)
	}
}

func TestListBodyShape(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	p, _ := c.List(catalog.KindFastTrack, "en", query(func(q *catalog.Query) { q.Limit = 1 }))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(p.Body, &raw); err != nil || len(raw) != 2 || raw["data"] == nil || raw["pagination"] == nil {
		t.Fatalf("body %s: %v", p.Body, err)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw["data"], &items); err != nil || len(items) != 1 {
		t.Fatalf("data: %v", err)
	}
	for _, f := range []string{"id", "name", "terminal", "location", "hub", "airside_zone", "business_hours", "is_active", "required_booking_info", "policy"} {
		if _, ok := items[0][f]; !ok {
			t.Errorf("fast-track lacks %q", f)
		}
	}
	empty, _ := c.List(catalog.KindLounge, "en", query(func(q *catalog.Query) { q.IATA = "JFK" }))
	if string(empty.Body) != `{"data":[],"pagination":{"count":0,"offset":0,"total":0}}` {
		t.Errorf("empty page body %s", empty.Body)
	}
	if _, err := c.List(catalog.KindLounge, "en", catalog.Query{}); !skygate.IsCode(err, skygate.CodeBadRequest) {
		t.Errorf("zero Query: %v, want BadRequest", err)
	}
}

func TestCachedPagesDoNotAllocate(t *testing.T) {
	c := MustLoad(t, catalog.Seed())
	q := query(func(q *catalog.Query) { q.Name = "lounge"; q.Limit = 10 })
	first, _ := c.List(catalog.KindLounge, "ru", q)
	if n := testing.AllocsPerRun(100, func() {
		p, _ := c.List(catalog.KindLounge, "ru", q)
		if p != first {
			t.Fatal("cached page differs")
		}
	}); n != 0 {
		t.Errorf("cached page: %v allocations", n)
	}
	id := MustSeedData(t).Lounges[0].ID
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Item(catalog.KindLounge, "kk", id) }); n != 0 {
		t.Errorf("item page: %v allocations", n)
	}
}

// TestEquivalentQueriesSharePage checks that raw queries which mean the same thing
// give the same page, that kind and language keep pages apart, and that a bad query is
// refused every time.
func TestEquivalentQueriesSharePage(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	long := "limit=2&iata=TAS&pad=" + strings.Repeat("x", 300)
	list := func(k catalog.Kind, lang, raw string) *catalog.Page {
		t.Helper()
		q, err := catalog.ParseQuery(raw)
		if err != nil {
			t.Fatalf("ParseQuery(%.30q): %v", raw, err)
		}
		p, err := c.List(k, lang, q)
		if err != nil {
			t.Fatalf("List(%v, %s, %.30q): %v", k, lang, raw, err)
		}
		return p
	}
	etags := map[string]string{}
	for _, k := range []catalog.Kind{catalog.KindLounge, catalog.KindFastTrack} {
		for _, lang := range []string{"en", "ru"} {
			want := list(k, lang, "limit=2&iata=TAS")
			for _, raw := range []string{"iata=TAS&limit=2", "iata=tas&limit=2&offset=", long} {
				for range 2 { // rendered, then cached
					got := list(k, lang, raw)
					if got.ETag != want.ETag || !bytes.Equal(got.Body, want.Body) || got.Language != want.Language {
						t.Errorf("List(%v, %s, %.30q) = %s, want %s", k, lang, raw, got.ETag, want.ETag)
					}
				}
			}
			if other, ok := etags[want.ETag]; ok {
				t.Errorf("%v/%s shares ETag %s with %s", k, lang, want.ETag, other)
			}
			etags[want.ETag] = fmt.Sprint(k, "/", lang)
		}
	}
	for range 2 {
		if _, err := catalog.ParseQuery("limit=0"); !skygate.IsCode(err, skygate.CodeBadRequest) {
			t.Errorf("limit=0: err = %v, want %s", err, skygate.CodeBadRequest)
		}
	}
}
