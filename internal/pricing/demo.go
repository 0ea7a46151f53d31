package pricing

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/skygate/skygate"
)

// DemoCurrency is the currency of the demo price list, that of the eSIM demo credit
// (esim.DemoCredit), so that the demo account can book from it.
const DemoCurrency = "USD"

// SeedDemo gives the account a price list of every fast-track of the current catalog
// in DemoCurrency (DemoPrice each), unless it ever had one: calling it on every start
// adds nothing twice and does not undo an admin's later change, a removal included.
// The write is audited as by's, with the admin API's action name.
func (s *Service) SeedDemo(ctx context.Context, accountID string, by skygate.Actor) error {
	list, err := s.store.FastTrackPrices(ctx, accountID)
	if err != nil {
		return err
	}
	if list.Version > 0 {
		return nil
	}
	ids := s.catalog.FastTrackIDs()
	items := make([]*PriceInput, len(ids))
	for i, id := range ids {
		adult := DemoPrice(id)
		child, infant := adult*3/4, int64(0)
		items[i] = &PriceInput{FastTrackID: id, Currency: DemoCurrency, Adult: adult, Child: &child, Infant: &infant}
	}
	audit, err := by.Audit(s.now(), "fast_track.prices.set", "account", accountID, accountID, nil)
	if err != nil {
		return err
	}
	if _, err := s.SetPrices(ctx, accountID, items, audit); err != nil {
		return fmt.Errorf("pricing: demo prices: %w", err)
	}
	return nil
}

// DemoPrice is the demo adult price of a fast-track: 25.00 to 60.00 in steps of 5.00,
// derived from its id so that every start (and every replica) agrees.
func DemoPrice(fastTrackID string) int64 {
	sum := sha256.Sum256([]byte(fastTrackID))
	return 2500 + int64(binary.BigEndian.Uint64(sum[:8])%8)*500
}
