package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var catalogTests = []test{
	{"EmptyIsNotFound", testCatalogEmpty},
	{"Replace", testCatalogReplace},
	{"ConcurrentReplace", testCatalogConcurrentReplace},
}

func testCatalogEmpty(t *testing.T, s skygate.Store) {
	_, err := s.Catalog(t.Context())
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.CatalogVersion(t.Context())
	WantCode(t, err, skygate.CodeNotFound)
}

func testCatalogReplace(t *testing.T, s skygate.Store) {
	steps := []struct {
		data string
		now  time.Time
	}{
		{`{"airports":[]}`, At(0)},
		{`{"airports":[{"iata":"ZRH"}]}`, At(time.Minute + 7*time.Nanosecond)},
		{`{"airports":[{"iata":"GVA","name":"Genève"}]}`, At(time.Hour).In(time.FixedZone("UTC-2", -7200))},
	}
	for i, step := range steps {
		want := &skygate.CatalogDocument{Data: []byte(step.data), Version: int64(i + 1), UpdatedAt: Stored(step.now)}
		got := MustReplaceCatalog(t, s, step.data, step.now)
		wantEqual(t, fmt.Sprintf("ReplaceCatalog %d", i+1), got, want)

		current, err := s.Catalog(t.Context())
		MustNoError(t, err, "Catalog")
		wantEqual(t, fmt.Sprintf("Catalog after replacement %d", i+1), current, want)
		wantUTC(t, "Catalog", current.UpdatedAt)
		v, err := s.CatalogVersion(t.Context())
		MustNoError(t, err, "CatalogVersion")
		if v != want.Version {
			t.Errorf("CatalogVersion after replacement %d = %d, want %d", i+1, v, want.Version)
		}
	}
}

func testCatalogConcurrentReplace(t *testing.T, s skygate.Store) {
	const n = 10
	versions := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			doc, err := s.ReplaceCatalog(t.Context(), fmt.Appendf(nil, `{"writer":%d}`, i), At(time.Duration(i)*time.Second))
			if err != nil {
				errs[i] = err
				return
			}
			versions[i] = doc.Version
		})
	}
	wg.Wait()
	for i, err := range errs {
		MustNoError(t, err, fmt.Sprintf("ReplaceCatalog of writer %d", i))
	}
	slices.Sort(versions)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	wantEqual(t, "versions", versions, want)

	current, err := s.Catalog(t.Context())
	MustNoError(t, err, "Catalog")
	wantEqual(t, "current version", current.Version, int64(n))
}
