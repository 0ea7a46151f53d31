package catalog_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// TestPricedPages: an account that never had a price list gets the shared page; one
// with a list gets its adult prices and an ETag of its own account and version, and a
// Last-Modified no earlier than the list's change.
func TestPricedPages(t *testing.T) {
	t.Parallel()
	cat := MustLoad(t, catalog.Seed())
	ft := MustSeedData(t).FastTracks[0].ID
	at := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	list := func(account string, version int64, prices ...skygate.FastTrackPrice) *skygate.PriceList {
		return &skygate.PriceList{AccountID: account, Version: version, Prices: prices, UpdatedAt: &at}
	}
	price := skygate.FastTrackPrice{FastTrackID: ft, Currency: "USD", Adult: 3500, Child: 2000, Infant: 0}

	shared, err := cat.Item(catalog.KindFastTrack, "en", ft)
	if err != nil {
		t.Fatal(err)
	}
	none, err := cat.PricedItem("en", ft, &skygate.PriceList{AccountID: "a"})
	if err != nil || none != shared {
		t.Fatalf("never-priced item = %v, %v; want the shared page", none, err)
	}
	a1, _ := cat.PricedItem("en", ft, list("a", 1, price))
	a2, _ := cat.PricedItem("en", ft, list("a", 2, price))
	b1, _ := cat.PricedItem("en", ft, list("b", 1, price))
	removed, _ := cat.PricedItem("en", ft, list("a", 3))
	tags := map[string]string{"shared": shared.ETag, "a1": a1.ETag, "a2": a2.ETag, "b1": b1.ETag, "removed": removed.ETag}
	seen := map[string]string{}
	for name, tag := range tags {
		if other, dup := seen[tag]; dup {
			t.Errorf("%s and %s share the ETag %s", name, other, tag)
		}
		seen[tag] = name
	}
	var got struct {
		Price *skygate.Money `json:"price"`
	}
	if err := json.Unmarshal(a1.Body, &got); err != nil || got.Price == nil || *got.Price != (skygate.Money{Amount: 3500, Currency: "USD"}) {
		t.Fatalf("priced item body: %s", a1.Body)
	}
	if err := json.Unmarshal(removed.Body, &got); err != nil || got.Price != nil {
		t.Fatalf("item of a removed list: %s", removed.Body)
	}
	if !a1.LastModified.Equal(at.Truncate(time.Second)) {
		t.Errorf("Last-Modified %v, want the list's change %v", a1.LastModified, at.Truncate(time.Second))
	}

	page, err := cat.PricedList("en", catalog.DefaultQuery, list("a", 1, price))
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Data []struct {
			ID    string         `json:"id"`
			Price *skygate.Money `json:"price"`
		} `json:"data"`
	}
	if err := json.Unmarshal(page.Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, it := range body.Data {
		if (it.ID == ft) != (it.Price != nil) {
			t.Errorf("list item %s has price %v", it.ID, it.Price)
		}
	}
	sharedList, _ := cat.List(catalog.KindFastTrack, "en", catalog.DefaultQuery)
	if page.ETag == sharedList.ETag {
		t.Error("the priced list shares the shared list's ETag")
	}
}
