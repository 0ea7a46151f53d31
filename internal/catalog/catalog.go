package catalog

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

//go:embed seed/catalog.json
var seed string

// Seed returns a copy of the catalog document shipped with the service. It is valid:
// the tests load it.
func Seed() []byte { return []byte(seed) }

// Kind selects lounges or fast-tracks.
type Kind uint8

const (
	KindLounge Kind = iota
	KindFastTrack
	numKinds
)

func (k Kind) String() string {
	if k == KindFastTrack {
		return "fast-track"
	}
	return "lounge"
}

// Catalog is one immutable, validated catalog document in its serving form. It is safe
// for concurrent use.
type Catalog struct {
	version   int64
	updatedAt time.Time
	digest    [sha256.Size]byte
	stats     Summary

	// views[lang][kind] lists the items in serving order.
	views [numLangs][numKinds][]entry
	// items[kind][id][lang] is the ready page of one item.
	items [numKinds]map[string]*[numLangs]*Page
	// fastTracks keeps the records for callers that need more than the JSON, such as
	// booking validation.
	fastTracks map[string]fastTrackRef

	cache *pageCache
}

// entry is one item of a language view.
type entry struct {
	id, iata, country string
	terminal          string
	name              string // Fold of the localized name
	body              []byte // the item's JSON
}

type fastTrackRef struct {
	rec *skygate.FastTrackRecord
	hub *skygate.HubRecord
	// zone is the hub's time zone, loaded when the catalog is built (nil if the name
	// does not load): the booking worker asks for it for every booking it issues.
	zone *time.Location
}

// Summary describes a catalog, for logs and the admin import response.
type Summary struct {
	Version    int64     `json:"version"`
	UpdatedAt  time.Time `json:"updated_at"`
	Hubs       int       `json:"hubs"`
	Lounges    int       `json:"lounges"`
	FastTracks int       `json:"fast_tracks"`
}

// Load decodes, validates and prepares a catalog document. Its version is 0 and its
// modification time unknown (no Last-Modified); LoadDocument sets both. Malformed JSON
// is CodeBadRequest, invalid content CodeValidation.
func Load(data []byte) (*Catalog, error) {
	d, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if err := Validate(d); err != nil {
		return nil, err
	}
	return build(d, sha256.Sum256(data), 0, time.Time{})
}

// LoadDocument is Load for a stored document, taking its version and UpdatedAt.
func LoadDocument(doc *skygate.CatalogDocument) (*Catalog, error) {
	c, err := Load(doc.Data)
	if err != nil {
		return nil, err
	}
	c.setDocument(doc.Version, doc.UpdatedAt)
	return c, nil
}

// setDocument fixes version and time before the catalog is shared.
func (c *Catalog) setDocument(version int64, updatedAt time.Time) {
	c.version = version
	c.updatedAt = updatedAt.UTC().Truncate(time.Second)
	c.stats.Version, c.stats.UpdatedAt = c.version, c.updatedAt
	for k := range c.items {
		for _, pages := range c.items[k] {
			for _, p := range pages {
				p.LastModified = c.updatedAt
			}
		}
	}
}

// Version returns the version of the stored document (0 for Load).
func (c *Catalog) Version() int64 { return c.version }

// UpdatedAt returns when the document was stored, truncated to seconds (zero for Load).
func (c *Catalog) UpdatedAt() time.Time { return c.updatedAt }

// Summary returns the version and item counts.
func (c *Catalog) Summary() Summary { return c.stats }

func build(d *skygate.CatalogData, digest [sha256.Size]byte, version int64, updatedAt time.Time) (*Catalog, error) {
	c := &Catalog{
		digest:     digest,
		fastTracks: make(map[string]fastTrackRef, len(d.FastTracks)),
		cache:      newPageCache(defaultCacheEntries, defaultCacheBytes),
		stats:      Summary{Hubs: len(d.Hubs), Lounges: len(d.Lounges), FastTracks: len(d.FastTracks)},
	}
	hubs := make(map[string]*skygate.HubRecord, len(d.Hubs))
	zones := make(map[string]*time.Location, len(d.Hubs))
	for i := range d.Hubs {
		h := &d.Hubs[i]
		hubs[h.ID] = h
		zones[h.ID], _ = time.LoadLocation(h.Timezone) // validated; nil if it does not load
	}
	amenities := make(map[string]*skygate.AmenityRecord, len(d.Amenities))
	for i := range d.Amenities {
		amenities[d.Amenities[i].ID] = &d.Amenities[i]
	}
	for k := range c.items {
		c.items[k] = map[string]*[numLangs]*Page{}
	}
	for i := range d.FastTracks {
		f := &d.FastTracks[i]
		c.fastTracks[f.ID] = fastTrackRef{rec: f, hub: hubs[f.HubID], zone: zones[f.HubID]}
	}
	for li, lang := range skygate.Languages {
		for i := range d.Lounges {
			l := &d.Lounges[i]
			hub := hubs[l.HubID]
			obj := localizeLounge(l, hub, amenities, lang)
			if err := c.add(KindLounge, li, l.ID, obj.Name, l.Terminal, hub, obj); err != nil {
				return nil, err
			}
		}
		for i := range d.FastTracks {
			f := &d.FastTracks[i]
			hub := hubs[f.HubID]
			obj := localizeFastTrack(f, hub, lang)
			if err := c.add(KindFastTrack, li, f.ID, obj.Name, f.Terminal, hub, obj); err != nil {
				return nil, err
			}
		}
		for k := range c.views[li] {
			slices.SortStableFunc(c.views[li][k], compareEntries)
		}
	}
	c.setDocument(version, updatedAt)
	return c, nil
}

// add encodes one localized item and appends it to the view of its language.
func (c *Catalog) add(k Kind, lang int, id, name, terminal string, hub *skygate.HubRecord, obj any) error {
	body, err := encode(obj)
	if err != nil {
		return err
	}
	c.views[lang][k] = append(c.views[lang][k], entry{
		id: id, iata: hub.Meta.IATA, country: hub.Location.Country, terminal: terminal,
		name: Fold(name), body: body,
	})
	pages := c.items[k][id]
	if pages == nil {
		pages = new([numLangs]*Page)
		c.items[k][id] = pages
	}
	pages[lang] = &Page{
		Body:     body,
		ETag:     c.etag(k, lang, "id", id),
		Language: skygate.Languages[lang],
	}
	return nil
}

func compareEntries(a, b entry) int {
	return cmp.Or(cmp.Compare(a.iata, b.iata), cmp.Compare(a.terminal, b.terminal),
		cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
}

// encode marshals v compactly without HTML escaping, so that texts such as "à la carte"
// or "<" stay readable.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
