package catalog

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/skygate/skygate"
)

// Service keeps the current Catalog in step with a skygate.CatalogStore shared by all
// replicas. Readers call Current (or the delegating list and item methods), which is one
// atomic load; Open, Refresh and Import replace the Catalog as a whole.
type Service struct {
	store skygate.CatalogStore
	now   skygate.Clock

	mu  sync.Mutex // serializes replacements
	cur atomic.Pointer[Catalog]
}

// NewService returns a Service that has no catalog until Open succeeds.
func NewService(store skygate.CatalogStore, now skygate.Clock) *Service {
	return &Service{store: store, now: now}
}

// Open loads the stored catalog. When the store has none, it stores the embedded seed
// first. Replicas starting together may each store the seed; the store then holds it as
// versions 1 and 2 with identical content, which changes no ETag because ETags derive
// from the content. A stored document that fails validation is an error: the service
// must not start with a catalog it cannot serve.
func (s *Service) Open(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, err := s.store.Catalog(ctx)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		seed := Seed()
		if _, err := Load(seed); err != nil {
			return fmt.Errorf("catalog: embedded seed: %w", err)
		}
		// Another replica may have stored a document since the read above; storing the
		// seed again is harmless (see above) and simpler than a conditional insert.
		doc, err = s.store.ReplaceCatalog(ctx, seed, s.now())
	}
	if err != nil {
		return fmt.Errorf("catalog: load: %w", err)
	}
	c, err := LoadDocument(doc)
	if err != nil {
		return fmt.Errorf("catalog: stored version %d: %w", doc.Version, err)
	}
	s.cur.Store(c)
	return nil
}

// Current returns the catalog being served, or nil before Open succeeded.
func (s *Service) Current() *Catalog { return s.cur.Load() }

// Refresh reloads the catalog when the store holds a newer version than the current one
// (an import on another replica) and reports whether it did; serve polls it every 5 s.
// It never goes back to an older version, which a store reading from a lagging replica
// of the database could return. On error the current catalog stays.
func (s *Service) Refresh(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The version first: the document, which may run to megabytes, is read only when
	// it changed.
	v, err := s.store.CatalogVersion(ctx)
	if err != nil {
		return false, fmt.Errorf("catalog: refresh: %w", err)
	}
	cur := s.cur.Load()
	if cur != nil && v <= cur.Version() {
		return false, nil
	}
	doc, err := s.store.Catalog(ctx)
	if err != nil {
		return false, fmt.Errorf("catalog: refresh: %w", err)
	}
	if cur != nil && doc.Version <= cur.Version() {
		return false, nil // the two reads went to different replicas
	}
	c, err := LoadDocument(doc)
	if err != nil {
		return false, fmt.Errorf("catalog: stored version %d: %w", doc.Version, err)
	}
	s.cur.Store(c)
	return true, nil
}

// Import validates data as a catalog document, stores it as the next version and serves
// it at once. Malformed JSON is CodeBadRequest, invalid content CodeValidation with the
// fields; nothing is stored then. Other replicas pick the new version up on Refresh.
func (s *Service) Import(ctx context.Context, data []byte) (Summary, error) {
	d, err := decodeValid(data)
	if err != nil {
		return Summary{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, err := s.store.ReplaceCatalog(ctx, data, s.now())
	if err != nil {
		return Summary{}, fmt.Errorf("catalog: import: %w", err)
	}
	c, err := build(d, sha256.Sum256(data), doc.Version, doc.UpdatedAt)
	if err != nil {
		return Summary{}, fmt.Errorf("catalog: import: %w", err)
	}
	s.cur.Store(c)
	return c.Summary(), nil
}

// catalog returns the current catalog or CodeUnavailable before Open.
func (s *Service) catalog() (*Catalog, error) {
	if c := s.cur.Load(); c != nil {
		return c, nil
	}
	return nil, skygate.Errorf(skygate.CodeUnavailable, "the catalog is not loaded yet")
}

// List is Catalog.List on the current catalog.
func (s *Service) List(k Kind, lang string, q Query) (*Page, error) {
	c, err := s.catalog()
	if err != nil {
		return nil, err
	}
	return c.List(k, lang, q)
}

// Item is Catalog.Item on the current catalog.
func (s *Service) Item(k Kind, lang, id string) (*Page, error) {
	c, err := s.catalog()
	if err != nil {
		return nil, err
	}
	return c.Item(k, lang, id)
}
