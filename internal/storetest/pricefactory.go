package storetest

import (
	"testing"

	"github.com/skygate/skygate"
)

// NewFastTrackPrice returns a USD price of the fast-track: adult as given, child three
// quarters of it, infant nothing.
func NewFastTrackPrice(fastTrackID string, adult int64) skygate.FastTrackPrice {
	return skygate.FastTrackPrice{FastTrackID: fastTrackID, Currency: "USD", Adult: adult, Child: adult * 3 / 4, Infant: 0}
}

// MustSetFastTrackPrices replaces the account's price list with prices at T0 and
// returns the list as stored.
func MustSetFastTrackPrices(tb testing.TB, s skygate.Store, accountID string, prices ...skygate.FastTrackPrice) *skygate.PriceList {
	tb.Helper()
	list, err := s.SetFastTrackPrices(tb.Context(), accountID, prices, T0, Audit("SetFastTrackPrices"))
	MustNoError(tb, err, "SetFastTrackPrices")
	return list
}

// MustFastTrackPrices returns the account's price list.
func MustFastTrackPrices(tb testing.TB, s skygate.Store, accountID string) *skygate.PriceList {
	tb.Helper()
	list, err := s.FastTrackPrices(tb.Context(), accountID)
	MustNoError(tb, err, "FastTrackPrices")
	return list
}
