package catalog

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
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
	summary Summary
	digest  [sha256.Size]byte

	// lists holds the items of each kind and language, localized and in list order.
	lists map[listKey][]entry
	// items holds the page of each item in each language.
	items map[itemKey]*Page
	// fastTracks keeps the records for callers that need more than the JSON, such as
	// booking validation.
	fastTracks map[string]fastTrackRef
	// pages holds rendered list pages.
	pages pageCache
}

type listKey struct {
	kind Kind
	lang string
}

type itemKey struct {
	kind Kind
	lang string
	id   string
}

// entry is one item of a list.
type entry struct {
	id, iata, country, terminal string
	name                        string // Fold of the localized name, for the name filter
	value                       any    // the localized skygate.Lounge or skygate.FastTrack
}

type fastTrackRef struct {
	rec *skygate.FastTrackRecord
	hub *skygate.HubRecord
	// zone is the hub's time zone, nil if its name does not load.
	zone *time.Location
	// notice is policy.booking_before_hours, 0 when the policy sets none.
	notice time.Duration
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
	return LoadDocument(&skygate.CatalogDocument{Data: data})
}

// LoadDocument is Load for a stored document, taking its version and UpdatedAt.
func LoadDocument(doc *skygate.CatalogDocument) (*Catalog, error) {
	d, err := decodeValid(doc.Data)
	if err != nil {
		return nil, err
	}
	return build(d, sha256.Sum256(doc.Data), doc.Version, doc.UpdatedAt)
}

// decodeValid decodes and validates a catalog document.
func decodeValid(data []byte) (*skygate.CatalogData, error) {
	d, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if err := Validate(d); err != nil {
		return nil, err
	}
	return d, nil
}

// Version returns the version of the stored document (0 for Load).
func (c *Catalog) Version() int64 { return c.summary.Version }

// UpdatedAt returns when the document was stored, truncated to seconds (zero for Load).
func (c *Catalog) UpdatedAt() time.Time { return c.summary.UpdatedAt }

// Summary returns the version and item counts.
func (c *Catalog) Summary() Summary { return c.summary }

// build prepares a validated document: every item localized in every language, the
// lists sorted, and the page of every item encoded.
func build(d *skygate.CatalogData, digest [sha256.Size]byte, version int64, updatedAt time.Time) (*Catalog, error) {
	c := &Catalog{
		summary: Summary{
			Version: version, UpdatedAt: updatedAt.UTC().Truncate(time.Second),
			Hubs: len(d.Hubs), Lounges: len(d.Lounges), FastTracks: len(d.FastTracks),
		},
		digest:     digest,
		lists:      map[listKey][]entry{},
		items:      map[itemKey]*Page{},
		fastTracks: make(map[string]fastTrackRef, len(d.FastTracks)),
	}
	hubs := make(map[string]*skygate.HubRecord, len(d.Hubs))
	for i := range d.Hubs {
		hubs[d.Hubs[i].ID] = &d.Hubs[i]
	}
	amenities := make(map[string]*skygate.AmenityRecord, len(d.Amenities))
	for i := range d.Amenities {
		amenities[d.Amenities[i].ID] = &d.Amenities[i]
	}
	for i := range d.FastTracks {
		f := &d.FastTracks[i]
		hub := hubs[f.HubID]
		zone, _ := time.LoadLocation(hub.Timezone) // validated; nil if it does not load
		var notice time.Duration
		if f.Policy.BookingBeforeHours != "" {
			notice, _ = ParseISODuration(f.Policy.BookingBeforeHours) // validated; 0 if not
		}
		c.fastTracks[f.ID] = fastTrackRef{rec: f, hub: hub, zone: zone, notice: notice}
	}

	for _, lang := range skygate.Languages {
		var lounges, fastTracks []entry
		for i := range d.Lounges {
			l := &d.Lounges[i]
			v := localizeLounge(l, hubs[l.HubID], amenities, lang)
			lounges = append(lounges, newEntry(l.ID, v.Name, l.Terminal, hubs[l.HubID], v))
		}
		for i := range d.FastTracks {
			f := &d.FastTracks[i]
			v := localizeFastTrack(f, hubs[f.HubID], lang)
			fastTracks = append(fastTracks, newEntry(f.ID, v.Name, f.Terminal, hubs[f.HubID], v))
		}
		if err := c.addList(KindLounge, lang, lounges); err != nil {
			return nil, err
		}
		if err := c.addList(KindFastTrack, lang, fastTracks); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func newEntry(id, name, terminal string, hub *skygate.HubRecord, value any) entry {
	return entry{
		id: id, iata: hub.Meta.IATA, country: hub.Location.Country, terminal: terminal,
		name: Fold(name), value: value,
	}
}

// addList sorts the entries of one kind and language into list order, keeps them, and
// encodes the page of each.
func (c *Catalog) addList(k Kind, lang string, entries []entry) error {
	slices.SortStableFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.iata, b.iata), cmp.Compare(a.terminal, b.terminal),
			cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
	})
	c.lists[listKey{k, lang}] = entries
	for _, e := range entries {
		body, err := encode(e.value)
		if err != nil {
			return err
		}
		c.items[itemKey{k, lang, e.id}] = &Page{
			Body:         body,
			ETag:         c.etag(fmt.Sprintf("item %d %q %q", k, lang, e.id)),
			LastModified: c.UpdatedAt(),
			Language:     lang,
		}
	}
	return nil
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
