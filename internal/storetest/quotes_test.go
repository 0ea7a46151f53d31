package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// quoteTests cover booking quotes: their round trip, tenancy, and their use by
// exactly one booking.
var quoteTests = []test{
	{"RoundTrip", testQuoteRoundTrip},
	{"OtherAccountNotFound", testQuoteOtherAccount},
	{"DuplicateID", testQuoteDuplicate},
	{"UsedByBooking", testQuoteUsedByBooking},
	{"Refusals", testQuoteRefusals},
	{"ReplayKeepsQuote", testQuoteReplay},
	{"ConcurrentCreatesOneQuote", testQuoteConcurrentUse},
}

// QuoteFor returns an unused quote of b's account for b's facts (its fast-track,
// flight time and passenger types) at b's price (or 1000 EUR), created at created
// and expiring skygate.QuoteTTL later; b's flight gets a scheduled time when it has
// none.
func QuoteFor(b *skygate.Booking, created time.Time) *skygate.Quote {
	if b.Flight.ScheduledAt == "" {
		b.Flight.ScheduledAt = b.ServiceDate + "T10:00"
	}
	price := skygate.Money{Amount: 1000, Currency: "EUR"}
	if b.Price != nil {
		price = *b.Price
	}
	return &skygate.Quote{
		ID: skygate.NewID(), AccountID: b.AccountID, ClientID: b.ClientID, FastTrackID: b.FastTrackID,
		Price: price, CancellationPolicy: b.CancellationPolicy, ScheduledAt: b.Flight.ScheduledAt,
		PassengerTypes: skygate.PassengerTypesOf(b.Passengers), Fingerprint: skygate.BookingQuoteFingerprint(b),
		CreatedAt: created, ExpiresAt: created.Add(skygate.QuoteTTL),
	}
}

// MustCreateQuote stores q and returns it.
func MustCreateQuote(tb testing.TB, s skygate.Store, q *skygate.Quote) *skygate.Quote {
	tb.Helper()
	MustNoError(tb, s.CreateQuote(tb.Context(), q), "CreateQuote")
	return q
}

// withQuote makes a booking name a new quote of its facts, stored in s.
func withQuote(tb testing.TB, s skygate.Store) func(*skygate.Booking) {
	return func(b *skygate.Booking) {
		WithCommerce(2000)(b)
		b.QuoteID = MustCreateQuote(tb, s, QuoteFor(b, b.CreatedAt.Add(-time.Minute))).ID
	}
}

func testQuoteRoundTrip(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	b := NewBooking(acc.ID, WithCommerce(4999), func(b *skygate.Booking) {
		b.Passengers[1].Type = skygate.PassengerChild
	})
	q := MustCreateQuote(t, s, QuoteFor(b, At(time.Second+time.Nanosecond)))
	wantUTC(t, "quote", q.CreatedAt, q.ExpiresAt)
	got, err := s.Quote(t.Context(), acc.ID, q.ID)
	MustNoError(t, err, "Quote")
	wantEqual(t, "quote", got, q)
	wantEqual(t, "types", got.PassengerTypes, []skygate.PassengerType{skygate.PassengerAdult, skygate.PassengerChild})

	_, err = s.Quote(t.Context(), acc.ID, skygate.NewID())
	WantCode(t, err, skygate.CodeNotFound)
	unknown := QuoteFor(NewBooking("no-such-account"), T0)
	WantCode(t, s.CreateQuote(t.Context(), unknown), skygate.CodeNotFound)
}

func testQuoteOtherAccount(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	q := MustCreateQuote(t, s, QuoteFor(NewBooking(acc.ID), T0))
	_, err := s.Quote(t.Context(), other.ID, q.ID)
	WantCode(t, err, skygate.CodeNotFound)

	// Another account's booking cannot use it either: to it, the quote does not exist.
	b := NewBooking(other.ID, WithCommerce(1000))
	b.FastTrackID, b.Flight.ScheduledAt, b.QuoteID = q.FastTrackID, q.ScheduledAt, q.ID
	_, err = s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	WantCode(t, err, skygate.CodeValidation)
	_, err = s.Booking(t.Context(), other.ID, b.ID)
	WantCode(t, err, skygate.CodeNotFound)
	got, err := s.Quote(t.Context(), acc.ID, q.ID)
	MustNoError(t, err, "Quote")
	wantEqual(t, "used by", got.UsedBy, "")
}

func testQuoteDuplicate(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	q := MustCreateQuote(t, s, QuoteFor(NewBooking(acc.ID), T0))
	again := QuoteFor(NewBooking(acc.ID), T0)
	again.ID = q.ID
	WantCode(t, s.CreateQuote(t.Context(), again), skygate.CodeConflict)
}

func testQuoteUsedByBooking(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1_000_000, "EUR") // priced bookings reserve their price
	b := MustCreateBooking(t, s, acc.ID, withQuote(t, s))
	got, err := s.Quote(t.Context(), acc.ID, b.QuoteID)
	MustNoError(t, err, "Quote")
	wantEqual(t, "used by", got.UsedBy, b.ID)
	if got.UsedAt == nil || !got.UsedAt.Equal(b.CreatedAt) {
		t.Errorf("used at %v, want %v", got.UsedAt, b.CreatedAt)
	}
	wantEqual(t, "booking's quote", MustBooking(t, s, acc.ID, b.ID).QuoteID, b.QuoteID)
}

// testQuoteRefusals: the store re-checks what the service checked, and a refused
// booking leaves nothing behind.
func testQuoteRefusals(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1_000_000, "EUR") // priced bookings reserve their price
	used := MustCreateBooking(t, s, acc.ID, withQuote(t, s))
	tests := []struct {
		name string
		mod  func(b *skygate.Booking)
		code string
	}{
		{"Unknown", func(b *skygate.Booking) { b.QuoteID = skygate.NewID() }, skygate.CodeValidation},
		{"Used", func(b *skygate.Booking) {
			b.FastTrackID, b.Flight.ScheduledAt, b.QuoteID = used.FastTrackID, used.Flight.ScheduledAt, used.QuoteID
		}, skygate.CodeQuoteUsed},
		{"Expired", func(b *skygate.Booking) {
			b.QuoteID = MustCreateQuote(t, s, QuoteFor(b, b.CreatedAt.Add(-skygate.QuoteTTL))).ID
		}, skygate.CodeQuoteExpired},
		{"OtherFacts", func(b *skygate.Booking) {
			b.QuoteID = MustCreateQuote(t, s, QuoteFor(b, b.CreatedAt)).ID
			b.Passengers = b.Passengers[:1]
		}, skygate.CodeValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBooking(acc.ID, WithCommerce(1000), tt.mod)
			_, err := s.CreateBooking(t.Context(), NewRecord(b, "key-"+tt.name, "fp"), b, nil)
			WantCode(t, err, tt.code)
			_, err = s.Booking(t.Context(), acc.ID, b.ID)
			WantCode(t, err, skygate.CodeNotFound)
			_, err = s.IdempotencyRecord(t.Context(), acc.ID, skygate.OperationCreateBooking, "key-"+tt.name, b.CreatedAt)
			WantCode(t, err, skygate.CodeNotFound)
		})
	}
}

// testQuoteReplay: a create replayed under its key answers the key's record before
// the quote, which its first answer used, is looked at again.
func testQuoteReplay(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1_000_000, "EUR") // priced bookings reserve their price
	first := NewBooking(acc.ID, withQuote(t, s))
	rec := NewRecord(first, "key", "fp")
	_, err := s.CreateBooking(t.Context(), rec, first, nil)
	MustNoError(t, err, "CreateBooking")
	again := first.Clone()
	again.ID = skygate.NewID()
	replay, err := s.CreateBooking(t.Context(), NewRecord(again, "key", "fp"), again, nil)
	MustNoError(t, err, "CreateBooking replayed")
	wantEqual(t, "replayed record", replay, rec)
}

// testQuoteConcurrentUse: of many bookings naming one quote at once, exactly one is
// created; every other is QuoteUsed.
func testQuoteConcurrentUse(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCredit(t, s, acc.ID, 1_000_000, "EUR") // priced bookings reserve their price
	proto := NewBooking(acc.ID, withQuote(t, s))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			b := proto.Clone()
			b.ID = skygate.NewID()
			_, errs[i] = s.CreateBooking(t.Context(), NewRecord(b, fmt.Sprint("key-", i), "fp"), b, nil)
		})
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !skygate.IsCode(err, skygate.CodeQuoteUsed):
			t.Errorf("CreateBooking: %v, want nil or QuoteUsed", err)
		}
	}
	wantEqual(t, "bookings created", created, 1)
	list, total, err := s.ListBookings(t.Context(), acc.ID, "", skygate.Page{})
	MustNoError(t, err, "ListBookings")
	wantEqual(t, "bookings stored", total, 1)
	q, err := s.Quote(t.Context(), acc.ID, proto.QuoteID)
	MustNoError(t, err, "Quote")
	wantEqual(t, "used by", q.UsedBy, list[0].ID)
}
