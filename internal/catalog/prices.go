package catalog

import (
	"fmt"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// Fast-tracks carry the calling account's adult price ("price"), so their pages depend
// on the account's price list. An account that never had a list is served the shared,
// cached pages (price null); one that has or had a list gets pages rendered for it,
// uncached, whose ETag folds in its account id and list version, and whose
// Last-Modified is the later of the catalog's and the list's change. Folding the
// version in rather than the prices keeps the tag cheap, and a removed list keeps its
// own tags so that no client's validator of a priced page ever matches a page without
// prices.

// PricedList is List of fast-tracks with each item's price taken from prices (nil, or
// a list of Version 0, is List's shared page).
func (c *Catalog) PricedList(lang string, q Query, prices *skygate.PriceList) (*Page, error) {
	if prices == nil || prices.Version == 0 {
		return c.List(KindFastTrack, lang, q)
	}
	key := listKey{KindFastTrack, skygate.Language(lang)}
	entries, ok := c.lists[key]
	if !ok || q.Limit < 1 || q.Limit > MaxLimit || q.Offset < 0 || q.Offset > MaxOffset {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "invalid query")
	}
	index := priceIndex(prices)
	data := []any{}
	total := 0
	for _, e := range entries {
		if !e.matches(q) {
			continue
		}
		if total >= q.Offset && len(data) < q.Limit {
			data = append(data, priced(e.value, index))
		}
		total++
	}
	body, err := encode(skygate.NewList(data, q.Offset, total))
	if err != nil {
		return nil, err
	}
	return &Page{
		Body:         body,
		ETag:         c.etag(fmt.Sprintf("list %d %q %d %d %q %q %q", KindFastTrack, key.lang, q.Limit, q.Offset, q.Name, q.IATA, q.Country) + priceSelection(prices)),
		LastModified: pricedModified(c.UpdatedAt(), prices),
		Language:     key.lang,
	}, nil
}

// PricedItem is Item of a fast-track with its price taken from prices (nil, or a list
// of Version 0, is Item's shared page).
func (c *Catalog) PricedItem(lang, id string, prices *skygate.PriceList) (*Page, error) {
	if prices == nil || prices.Version == 0 {
		return c.Item(KindFastTrack, lang, id)
	}
	lang = skygate.Language(lang)
	ref, ok := c.fastTracks[id]
	if !ok {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no %s with id %q", KindFastTrack, id)
	}
	body, err := encode(priced(localizeFastTrack(ref.rec, ref.hub, lang), priceIndex(prices)))
	if err != nil {
		return nil, err
	}
	return &Page{
		Body:         body,
		ETag:         c.etag(fmt.Sprintf("item %d %q %q", KindFastTrack, lang, id) + priceSelection(prices)),
		LastModified: pricedModified(c.UpdatedAt(), prices),
		Language:     lang,
	}, nil
}

// priceIndex maps fast-track ids to their adult price in prices.
func priceIndex(prices *skygate.PriceList) map[string]skygate.Money {
	index := make(map[string]skygate.Money, len(prices.Prices))
	for _, p := range prices.Prices {
		index[p.FastTrackID] = skygate.Money{Amount: p.Adult, Currency: p.Currency}
	}
	return index
}

// priced returns a copy of the fast-track v (a skygate.FastTrack) with its price from
// index, nil when index has none.
func priced(v any, index map[string]skygate.Money) skygate.FastTrack {
	ft := v.(skygate.FastTrack)
	if m, ok := index[ft.ID]; ok {
		ft.Price = &m
	} else {
		ft.Price = nil
	}
	return ft
}

// priceSelection is the part of an ETag's selection that names the price list.
func priceSelection(prices *skygate.PriceList) string {
	return fmt.Sprintf(" prices %q %d", prices.AccountID, prices.Version)
}

// pricedModified is the later of the catalog's modification time and the list's, in
// whole seconds.
func pricedModified(catalog time.Time, prices *skygate.PriceList) time.Time {
	if prices.UpdatedAt == nil {
		return catalog
	}
	if at := prices.UpdatedAt.UTC().Truncate(time.Second); at.After(catalog) {
		return at
	}
	return catalog
}

// PricedList is Catalog.PricedList on the current catalog.
func (s *Service) PricedList(lang string, q Query, prices *skygate.PriceList) (*Page, error) {
	c, err := s.catalog()
	if err != nil {
		return nil, err
	}
	return c.PricedList(lang, q, prices)
}

// PricedItem is Catalog.PricedItem on the current catalog.
func (s *Service) PricedItem(lang, id string, prices *skygate.PriceList) (*Page, error) {
	c, err := s.catalog()
	if err != nil {
		return nil, err
	}
	return c.PricedItem(lang, id, prices)
}

// CatalogCapacity returns the capacity per slot the fast-track's catalog record gives
// (FastTrackRecord.CapacityPerSlot); ok is false for an unknown id or before Open.
func (s *Service) CatalogCapacity(id string) (capacity int, ok bool) {
	ref, ok := s.fastTrack(id)
	if !ok {
		return 0, false
	}
	return ref.rec.CapacityPerSlot, true
}

// FastTrackIDs returns the ids of the current catalog's fast-tracks, sorted; none
// before Open.
func (s *Service) FastTrackIDs() []string {
	c := s.Current()
	if c == nil {
		return nil
	}
	ids := make([]string, 0, len(c.fastTracks))
	for id := range c.fastTracks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
