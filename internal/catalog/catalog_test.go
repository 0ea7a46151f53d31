package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

func TestSeedIsValidAndComplete(t *testing.T) {
	t.Parallel()
	d := MustSeedData(t)
	if err := catalog.Validate(d); err != nil {
		t.Fatalf("Validate(seed): %v %+v", err, err.(*skygate.Error).Fields)
	}
	wantIATA := []string{"TAS", "SKD", "BHK", "NMA", "ALA", "NQZ", "CIT", "IST", "DXB", "FRA", "SVO", "LHR"}
	lounges, fastTracks := map[string]int{}, map[string]int{}
	for _, l := range d.Lounges {
		lounges[l.HubID]++
	}
	for _, f := range d.FastTracks {
		fastTracks[f.HubID]++
	}
	var got []string
	for _, h := range d.Hubs {
		got = append(got, h.Meta.IATA)
		if lounges[h.ID] == 0 || fastTracks[h.ID] == 0 {
			t.Errorf("hub %s has %d lounges and %d fast-tracks, want at least one of each", h.Meta.IATA, lounges[h.ID], fastTracks[h.ID])
		}
	}
	for _, iata := range wantIATA {
		if !slices.Contains(got, iata) {
			t.Errorf("seed lacks hub %s", iata)
		}
	}
}

// TestSeedScripts checks that each language is written in its script: Russian and
// Kazakh in Cyrillic, Uzbek and English in Latin.
func TestSeedScripts(t *testing.T) {
	t.Parallel()
	d := MustSeedData(t)
	var texts []skygate.LocalizedText
	for _, h := range d.Hubs {
		texts = append(texts, h.Name, h.Location.City)
	}
	for _, a := range d.Amenities {
		texts = append(texts, a.Name)
	}
	for _, l := range d.Lounges {
		texts = append(texts, l.Name, l.Description, l.DirectionInfo, l.Policy.Age.Notes)
		for _, im := range l.Images {
			texts = append(texts, im.Title)
		}
	}
	for _, f := range d.FastTracks {
		texts = append(texts, f.Name)
	}
	cyr := func(s string) bool {
		return slices.ContainsFunc([]rune(s), func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) })
	}
	for _, tx := range texts {
		if tx.RU != "Wi-Fi" && !cyr(tx.RU) && tx.RU != tx.EN {
			t.Errorf("ru text %q has no Cyrillic letter", tx.RU)
		}
		if !cyr(tx.KK) && tx.KK != tx.EN {
			t.Errorf("kk text %q has no Cyrillic letter", tx.KK)
		}
		if cyr(tx.UZ) || cyr(tx.EN) {
			t.Errorf("uz %q or en %q has Cyrillic letters", tx.UZ, tx.EN)
		}
	}
	// City names differ by language where the languages differ.
	for _, h := range d.Hubs {
		if h.Meta.IATA == "TAS" {
			want := skygate.LocalizedText{EN: "Tashkent", RU: "Ташкент", UZ: "Toshkent", KK: "Ташкент"}
			if h.Location.City != want {
				t.Errorf("TAS city = %+v, want %+v", h.Location.City, want)
			}
		}
	}
}

func TestListPagination(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	all, _ := MustList[skygate.Lounge](t, c, catalog.KindLounge, "en", catalog.DefaultQuery)
	total := all.Pagination.Total
	if total < 20 || all.Pagination.Count != total || len(all.Data) != total || all.Pagination.Offset != 0 {
		t.Fatalf("pagination = %+v with %d items", all.Pagination, len(all.Data))
	}
	// Pages of 5 concatenate to the full list, in the same order.
	var ids []string
	for off := 0; off < total+5; off += 5 {
		page, _ := MustList[skygate.Lounge](t, c, catalog.KindLounge, "en", query(func(q *catalog.Query) { q.Limit, q.Offset = 5, off }))
		if page.Pagination.Total != total || page.Pagination.Offset != off || page.Pagination.Count != len(page.Data) {
			t.Fatalf("offset %d: pagination %+v with %d items", off, page.Pagination, len(page.Data))
		}
		for _, l := range page.Data {
			ids = append(ids, l.ID)
		}
	}
	var want []string
	for _, l := range all.Data {
		want = append(want, l.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("paged ids differ from the full list")
	}
	// Ordered by hub IATA code.
	if !slices.IsSortedFunc(all.Data, func(a, b skygate.Lounge) int { return cmpString(a.Hub.Meta.IATA, b.Hub.Meta.IATA) }) {
		t.Errorf("lounges are not ordered by IATA")
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	c := MustLoad(t, catalog.Seed())
	tests := []struct {
		name  string
		kind  catalog.Kind
		lang  string
		q     catalog.Query
		check func(t *testing.T, names []string, hubs []string, countries []string)
		total int // -1: only check
	}{
		{name: "iata", kind: catalog.KindLounge, lang: "en", q: query(func(q *catalog.Query) { q.IATA = "TAS" }), total: 3},
		{name: "country", kind: catalog.KindLounge, lang: "en", q: query(func(q *catalog.Query) { q.Country = "KZ" }), total: 5},
		{name: "iata and country disagree", kind: catalog.KindLounge, lang: "en", q: query(func(q *catalog.Query) { q.IATA, q.Country = "TAS", "KZ" }), total: 0},
		{name: "unknown iata", kind: catalog.KindFastTrack, lang: "en", q: query(func(q *catalog.Query) { q.IATA = "JFK" }), total: 0},
		{name: "name in Russian", kind: catalog.KindLounge, lang: "ru", q: query(func(q *catalog.Query) { q.Name = catalog.Fold("БИЗНЕС-ЗАЛ") }), total: -1,
			check: func(t *testing.T, names, _, _ []string) {
				for _, n := range names {
					if !containsFold(n, "бизнес-зал") {
						t.Errorf("%q does not match", n)
					}
				}
			}},
		{name: "English name does not match in Russian", kind: catalog.KindLounge, lang: "ru", q: query(func(q *catalog.Query) { q.Name = catalog.Fold("Business Lounge") }), total: 0},
		{name: "name in Uzbek with ASCII apostrophe", kind: catalog.KindFastTrack, lang: "uz", q: query(func(q *catalog.Query) { q.Name = catalog.Fold("UCHIB KELISH") }), total: -1,
			check: func(t *testing.T, names, _, _ []string) {
				if len(names) < 3 {
					t.Errorf("got %v", names)
				}
			}},
		{name: "name in Kazakh", kind: catalog.KindFastTrack, lang: "kk", q: query(func(q *catalog.Query) { q.Name = catalog.Fold("ҰШЫП КЕЛУ") }), total: -1,
			check: func(t *testing.T, names, _, _ []string) {
				if len(names) < 3 {
					t.Errorf("got %v", names)
				}
			}},
		{name: "name and iata", kind: catalog.KindLounge, lang: "en", q: query(func(q *catalog.Query) { q.Name, q.IATA = "plaza", "LHR" }), total: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var names, hubs, countries []string
			var total, count int
			if tt.kind == catalog.KindLounge {
				b, _ := MustList[skygate.Lounge](t, c, tt.kind, tt.lang, tt.q)
				for _, l := range b.Data {
					names, hubs, countries = append(names, l.Name), append(hubs, l.Hub.Meta.IATA), append(countries, l.Location.Country)
				}
				total, count = b.Pagination.Total, b.Pagination.Count
			} else {
				b, _ := MustList[skygate.FastTrack](t, c, tt.kind, tt.lang, tt.q)
				for _, f := range b.Data {
					names, hubs, countries = append(names, f.Name), append(hubs, f.Hub.Meta.IATA), append(countries, f.Location.Country)
				}
				total, count = b.Pagination.Total, b.Pagination.Count
			}
			if count != len(names) {
				t.Errorf("count %d for %d items", count, len(names))
			}
			if tt.total >= 0 && total != tt.total {
				t.Errorf("total = %d, want %d (%v)", total, tt.total, names)
			}
			for i := range hubs {
				if tt.q.IATA != "" && hubs[i] != tt.q.IATA || tt.q.Country != "" && countries[i] != tt.q.Country {
					t.Errorf("item %q of %s/%s does not match the filter", names[i], hubs[i], countries[i])
				}
			}
			if tt.check != nil {
				tt.check(t, names, hubs, countries)
			}
		})
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(catalog.Fold(s), catalog.Fold(sub))
}
