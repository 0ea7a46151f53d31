package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestESIMOrdersSideBySide holds one order of an account after its allocation, in its
// apply, and places a second order of the account meanwhile: it must complete. Orders
// take their profiles side by side, paid ones too, since the debit is an order's last
// statement; only an order that finds the pool short that way waits for the others,
// behind the account's allocation lock. (Before, a paid order held the account's
// balance row from its debit on, so a slow order held up the account's others for its
// whole transaction.) SQLite's single writer puts every order in line, so this is
// PostgreSQL's alone.
func TestESIMOrdersSideBySide(t *testing.T) {
	t.Parallel()
	for _, price := range []int64{0, 500} {
		s := pgtest.MustOpen(t)
		acc := storetest.MustCreateAccount(t, s)
		pkg := storetest.MustESIMPackage(t, s, acc.ID, storetest.WithPrice(price, "USD"))
		storetest.MustImportPool(t, s, acc.ID, 2)
		if price > 0 {
			storetest.MustCredit(t, s, acc.ID, 2*price, "USD")
		}

		first := storetest.NewESIMOrder(pkg, 1)
		release := storetest.HoldESIMOrder(t, s, first, "first", nil)

		// Liveness, not speed: an order in line would wait for the release, which only
		// comes after it, so a generous bound tells a wait from a slow machine.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		second := storetest.NewESIMOrder(pkg, 1)
		rec := storetest.NewESIMRecord(acc.ID, skygate.OperationESIMOrder, "second", second.ID, "fp", second.CreatedAt)
		_, err := s.CreateESIMOrder(ctx, rec, second, nil)
		cancel()
		firstErr := release()
		storetest.MustNoError(t, err, "the second order, while the first is held after its allocation")
		storetest.MustNoError(t, firstErr, "the first order")

		if a, b := first.ICCIDs(), second.ICCIDs(); len(a) != 1 || len(b) != 1 || a[0] == b[0] {
			t.Fatalf("eSIMs of the orders at price %d: %v and %v", price, a, b)
		}
	}
}
