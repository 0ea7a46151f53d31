package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// quotePurgeTests cover QuoteStore.PurgeQuotes: which quotes go, in what order, and
// that a booking outlives the quote it locked.
var quotePurgeTests = []test{
	{"ExpiredBeforeOnly", testPurgeQuotesExpiredBefore},
	{"LimitOldestFirst", testPurgeQuotesLimit},
	{"BookingKeepsQuoteID", testPurgeQuotesUsed},
}

// mustQuoteExpiring stores a quote of the account that expires at expires.
func mustQuoteExpiring(tb testing.TB, s skygate.Store, accountID string, expires time.Time) *skygate.Quote {
	tb.Helper()
	return MustCreateQuote(tb, s, QuoteFor(NewBooking(accountID), expires.Add(-skygate.QuoteTTL)))
}

// wantQuotes fails unless each id's quote of the account exists (true) or is
// CodeNotFound (false).
func wantQuotes(tb testing.TB, s skygate.Store, accountID string, want map[string]bool) {
	tb.Helper()
	for id, exists := range want {
		_, err := s.Quote(tb.Context(), accountID, id)
		switch {
		case exists && err != nil:
			tb.Errorf("quote %s: %v, want it kept", id, err)
		case !exists && !skygate.IsCode(err, skygate.CodeNotFound):
			tb.Errorf("quote %s: %v, want NotFound (purged)", id, err)
		}
	}
}

// testPurgeQuotesExpiredBefore: quotes of every account that expired strictly before
// the cutoff go; one expiring at it or later stays.
func testPurgeQuotesExpiredBefore(t *testing.T, s skygate.Store) {
	a, b := MustCreateAccount(t, s), MustCreateAccount(t, s)
	cutoff := At(48 * time.Hour)
	oldA := mustQuoteExpiring(t, s, a.ID, cutoff.Add(-time.Hour))
	oldB := mustQuoteExpiring(t, s, b.ID, cutoff.Add(-time.Microsecond))
	atCutoff := mustQuoteExpiring(t, s, a.ID, cutoff)
	live := mustQuoteExpiring(t, s, b.ID, cutoff.Add(time.Hour))

	n, err := s.PurgeQuotes(t.Context(), cutoff, 100)
	MustNoError(t, err, "PurgeQuotes")
	wantEqual(t, "purged", n, 2)
	wantQuotes(t, s, a.ID, map[string]bool{oldA.ID: false, atCutoff.ID: true})
	wantQuotes(t, s, b.ID, map[string]bool{oldB.ID: false, live.ID: true})

	n, err = s.PurgeQuotes(t.Context(), cutoff, 100)
	MustNoError(t, err, "PurgeQuotes again")
	wantEqual(t, "purged again", n, 0)
}

// testPurgeQuotesLimit: a purge deletes at most limit quotes, those that expired
// first; a limit below 1 deletes nothing.
func testPurgeQuotesLimit(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	var quotes []*skygate.Quote
	for i := range 5 {
		// Created newest first, so that insertion order is not expiry order.
		quotes = append(quotes, mustQuoteExpiring(t, s, acc.ID, At(time.Duration(5-i)*time.Hour)))
	}
	cutoff := At(24 * time.Hour)
	for _, limit := range []int{0, -1} {
		n, err := s.PurgeQuotes(t.Context(), cutoff, limit)
		MustNoError(t, err, "PurgeQuotes")
		wantEqual(t, "purged with a limit below 1", n, 0)
	}
	n, err := s.PurgeQuotes(t.Context(), cutoff, 2)
	MustNoError(t, err, "PurgeQuotes")
	wantEqual(t, "purged", n, 2)
	// quotes[4] and quotes[3] expired first (at +1h and +2h).
	wantQuotes(t, s, acc.ID, map[string]bool{quotes[4].ID: false, quotes[3].ID: false,
		quotes[2].ID: true, quotes[1].ID: true, quotes[0].ID: true})
	n, err = s.PurgeQuotes(t.Context(), cutoff, 10)
	MustNoError(t, err, "PurgeQuotes the rest")
	wantEqual(t, "purged the rest", n, 3)
}

// testPurgeQuotesUsed: a used quote is purged like any other, and the booking that
// locked it keeps its quote id and price.
func testPurgeQuotesUsed(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1_000_000, "EUR") // a priced booking reserves its price
	b := MustCreateBooking(t, s, acc.ID, withQuote(t, s))
	q, err := s.Quote(t.Context(), acc.ID, b.QuoteID)
	MustNoError(t, err, "Quote")
	n, err := s.PurgeQuotes(t.Context(), q.ExpiresAt.Add(time.Microsecond), 10)
	MustNoError(t, err, "PurgeQuotes")
	wantEqual(t, "purged", n, 1)
	wantQuotes(t, s, acc.ID, map[string]bool{q.ID: false})
	got := MustBooking(t, s, acc.ID, b.ID)
	wantEqual(t, "booking's quote", got.QuoteID, b.QuoteID)
	wantEqual(t, "booking's price", got.Price, b.Price)
}
