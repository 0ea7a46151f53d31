package postgres_test

import (
	"sync"
	"testing"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/seal/sealtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestConcurrentMigrate starts several replicas on one empty schema at once; the
// advisory lock must let each Migrate succeed and leave one schema.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	dsn := pgtest.MustDSN(t)
	const replicas = 5
	stores := make([]*postgres.Store, replicas)
	for i := range stores {
		s, err := postgres.Open(t.Context(), dsn, 0, sealtest.New(t), nil)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() { errs[i] = s.Migrate(t.Context()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Migrate of replica %d: %v", i, err)
		}
	}
	// Every replica sees the one schema: a row written by one is read by another.
	acc := storetest.MustCreateAccount(t, stores[0])
	if got := storetest.MustAccount(t, stores[replicas-1], acc.ID); got.Name != acc.Name {
		t.Fatalf("account read by another replica = %+v", got)
	}
}

func TestOpenBadDSN(t *testing.T) {
	t.Parallel()
	if s, err := postgres.Open(t.Context(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1", 0, sealtest.New(t), nil); err == nil {
		s.Close()
		t.Fatal("Open of an unreachable server succeeded")
	}
}
