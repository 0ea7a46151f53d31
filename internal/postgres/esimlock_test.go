package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestESIMChangeLeavesForeignKeysFree holds a change of an eSIM in its apply, after
// the change locked the eSIM's row, and meanwhile appends to the eSIM's history as
// another transaction: the insert must not wait. A change locks the row FOR NO KEY
// UPDATE, which serialises the changes of the eSIM; the foreign keys of esim_history
// and esim_topups take KEY SHARE, which FOR UPDATE would block until the change
// commits.
func TestESIMChangeLeavesForeignKeysFree(t *testing.T) {
	t.Parallel()
	s := pgtest.MustOpen(t)
	acc := storetest.MustCreateAccount(t, s)
	pkg := storetest.MustESIMPackage(t, s, acc.ID, storetest.WithPrice(0, "USD"))
	storetest.MustImportPool(t, s, acc.ID, 1)
	order := storetest.NewESIMOrder(pkg, 1)
	rec := storetest.NewESIMRecord(acc.ID, skygate.OperationESIMOrder, "order", order.ID, "fp", order.CreatedAt)
	_, err := s.CreateESIMOrder(t.Context(), rec, order, nil)
	storetest.MustNoError(t, err, "CreateESIMOrder")
	iccid := order.ICCIDs()[0]

	locked, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.UpdateESIM(t.Context(), acc.ID, iccid, order.CreatedAt.Add(time.Hour), func(_, _ *skygate.ESIM) ([]*skygate.Event, error) {
			close(locked)
			<-release
			return nil, nil
		})
		done <- err
	}()
	select {
	case <-locked:
	case err := <-done:
		t.Fatalf("the change ended before its apply: %v", err)
	}
	// Liveness, not speed: a blocked insert would wait for the release, which only
	// comes after it, so a generous bound tells a wait from a slow machine.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	_, err = s.DB().ExecContext(ctx, `INSERT INTO esim_history (account_id, iccid, at, kind, data)
		VALUES ($1, $2, now(), 'note', '{}')`, acc.ID, iccid)
	cancel()
	close(release)
	storetest.MustNoError(t, err, "history insert while a change holds the eSIM")
	storetest.MustNoError(t, <-done, "the held change")
}
