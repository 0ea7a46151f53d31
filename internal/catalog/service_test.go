package catalog_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// memStore is an in-memory skygate.CatalogStore.
type memStore struct {
	mu       sync.Mutex
	doc      *skygate.CatalogDocument
	replaced int
	reads    int   // calls of Catalog: the whole document
	err      error // returned by every call when set
	// staleDoc, when set, is what Catalog returns instead of doc: a read that went to a
	// replica of the database behind the one CatalogVersion read.
	staleDoc *skygate.CatalogDocument
}

var _ skygate.CatalogStore = (*memStore)(nil)

func (s *memStore) Catalog(context.Context) (*skygate.CatalogDocument, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.doc == nil {
		return nil, skygate.Errorf(skygate.CodeNotFound, "no catalog")
	}
	s.reads++
	if s.staleDoc != nil {
		d := *s.staleDoc
		return &d, nil
	}
	d := *s.doc
	return &d, nil
}

func (s *memStore) CatalogVersion(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.doc == nil {
		return 0, skygate.Errorf(skygate.CodeNotFound, "no catalog")
	}
	return s.doc.Version, nil
}

func (s *memStore) ReplaceCatalog(_ context.Context, data []byte, now time.Time) (*skygate.CatalogDocument, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var v int64 = 1
	if s.doc != nil {
		v = s.doc.Version + 1
	}
	s.doc = &skygate.CatalogDocument{Data: slices.Clone(data), Version: v, UpdatedAt: now}
	s.replaced++
	d := *s.doc
	return &d, nil
}

type serviceBundle struct {
	store *memStore
	svc   *catalog.Service
}

func setup(t *testing.T) serviceBundle {
	t.Helper()
	st := &memStore{}
	return serviceBundle{store: st, svc: catalog.NewService(st, func() time.Time { return fixedTime })}
}

func TestServiceSeedsEmptyStore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := b.svc.List(catalog.KindLounge, "en", catalog.DefaultQuery); !skygate.IsCode(err, skygate.CodeUnavailable) {
		t.Errorf("before Open: %v, want Unavailable", err)
	}
	if err := b.svc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b.store.replaced != 1 || string(b.store.doc.Data) != string(catalog.Seed()) {
		t.Errorf("store replaced %d times", b.store.replaced)
	}
	c := b.svc.Current()
	if c.Version() != 1 || !c.UpdatedAt().Equal(fixedTime.Truncate(time.Second)) {
		t.Errorf("version %d at %v", c.Version(), c.UpdatedAt())
	}
	p, err := b.svc.List(catalog.KindLounge, "ru", catalog.DefaultQuery)
	if err != nil || p.Language != "ru" || !p.LastModified.Equal(c.UpdatedAt()) {
		t.Errorf("Lounges: %v", err)
	}
	d := MustSeedData(t)
	if p, err := b.svc.Item(catalog.KindFastTrack, "kk", d.FastTracks[0].ID); err != nil || p.Language != "kk" {
		t.Errorf("FastTrack: %v", err)
	}
	if _, err := b.svc.Item(catalog.KindLounge, "kk", d.FastTracks[0].ID); !skygate.IsCode(err, skygate.CodeNotFound) {
		t.Errorf("Lounge(fast-track id): %v", err)
	}
}

func TestServiceKeepsStoredDocument(t *testing.T) {
	t.Parallel()
	b := setup(t)
	d := MustSeedData(t)
	d.Lounges = d.Lounges[:1]
	b.store.doc = &skygate.CatalogDocument{Data: MustMarshal(t, d), Version: 5, UpdatedAt: fixedTime}
	if err := b.svc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b.store.replaced != 0 || b.svc.Current().Version() != 5 || b.svc.Current().Summary().Lounges != 1 {
		t.Errorf("Open replaced %d times, serves version %d", b.store.replaced, b.svc.Current().Version())
	}
}

func TestServiceOpenErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.doc = &skygate.CatalogDocument{Data: []byte(`{"hubs":[]}`), Version: 2}
	if err := b.svc.Open(t.Context()); !skygate.IsCode(err, skygate.CodeValidation) {
		t.Errorf("invalid stored document: %v", err)
	}
	b.store.err = errors.New("database down")
	if err := b.svc.Open(t.Context()); err == nil || b.svc.Current() != nil {
		t.Errorf("store error: %v", err)
	}
}

func TestServiceConcurrentOpen(t *testing.T) {
	t.Parallel()
	st := &memStore{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			svc := catalog.NewService(st, time.Now)
			if err := svc.Open(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Replicas may each seed, but with identical content.
	if st.replaced < 1 || string(st.doc.Data) != string(catalog.Seed()) {
		t.Errorf("replaced %d times", st.replaced)
	}
}

func TestServiceImportAndRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.svc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	other := catalog.NewService(b.store, time.Now) // a second replica
	if err := other.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	before, _ := other.List(catalog.KindLounge, "en", catalog.DefaultQuery)

	reads := b.store.reads
	if changed, err := other.Refresh(t.Context()); err != nil || changed {
		t.Errorf("Refresh without change = %v, %v", changed, err)
	}
	if b.store.reads != reads {
		t.Error("Refresh without change read the whole document")
	}

	// Invalid imports store nothing.
	if _, err := b.svc.Import(t.Context(), []byte(`{"hubs":[]}`)); !skygate.IsCode(err, skygate.CodeValidation) {
		t.Errorf("Import invalid: %v", err)
	}
	if _, err := b.svc.Import(t.Context(), []byte(`{`)); !skygate.IsCode(err, skygate.CodeBadRequest) {
		t.Errorf("Import malformed: %v", err)
	}
	if b.store.replaced != 1 {
		t.Fatalf("invalid import stored a document")
	}

	d := MustSeedData(t)
	d.Lounges = d.Lounges[:2]
	sum, err := b.svc.Import(t.Context(), MustMarshal(t, d))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Version != 2 || sum.Lounges != 2 || sum.Hubs != len(d.Hubs) || b.svc.Current().Version() != 2 {
		t.Errorf("Import summary %+v", sum)
	}

	changed, err := other.Refresh(t.Context())
	if err != nil || !changed {
		t.Fatalf("Refresh = %v, %v", changed, err)
	}
	after, _ := other.List(catalog.KindLounge, "en", catalog.DefaultQuery)
	if after.ETag == before.ETag {
		t.Error("ETag unchanged after import")
	}
	l, _ := MustList[skygate.Lounge](t, other.Current(), catalog.KindLounge, "en", catalog.DefaultQuery)
	if l.Pagination.Total != 2 {
		t.Errorf("refreshed replica serves %d lounges", l.Pagination.Total)
	}

	// A store that answers with an older version (a lagging read replica) leaves the
	// newer catalog in place, whether the version or the document is the old one.
	b.store.mu.Lock()
	newer := *b.store.doc
	b.store.doc.Version = 1
	b.store.mu.Unlock()
	if changed, err := other.Refresh(t.Context()); err != nil || changed || other.Current().Version() != 2 {
		t.Errorf("Refresh to an older version = %v, %v; serving version %d", changed, err, other.Current().Version())
	}
	b.store.mu.Lock()
	b.store.doc = &newer
	b.store.staleDoc = &skygate.CatalogDocument{Data: catalog.Seed(), Version: 1}
	b.store.mu.Unlock()
	if changed, err := other.Refresh(t.Context()); err != nil || changed || other.Current().Version() != 2 {
		t.Errorf("Refresh reading an older document = %v, %v; serving version %d", changed, err, other.Current().Version())
	}
	b.store.mu.Lock()
	b.store.staleDoc = nil
	b.store.mu.Unlock()

	// A failing store keeps the current catalog.
	b.store.mu.Lock()
	b.store.err = errors.New("database down")
	b.store.mu.Unlock()
	if _, err := other.Refresh(t.Context()); err == nil || other.Current().Version() != 2 {
		t.Errorf("Refresh with a failing store: %v", err)
	}
}
