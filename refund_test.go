package skygate_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// seedRules is the seed catalog's policy: everything back until 24 h before the
// flight, half until 2 h before, nothing after.
var seedRules = []skygate.CancellationRule{{HoursBefore: 24, RefundPercent: 100}, {HoursBefore: 2, RefundPercent: 50}}

func TestCancellationTerms(t *testing.T) {
	t.Parallel()
	flight := time.Date(2025, 6, 3, 9, 30, 0, 0, time.FixedZone("UTC+5", 5*3600))
	tests := []struct {
		name  string
		rules []skygate.CancellationRule
		price skygate.Money
		want  []skygate.CancellationTerm
	}{
		{"Seed", seedRules, skygate.Money{Amount: 4999, Currency: "USD"}, []skygate.CancellationTerm{
			{Until: time.Date(2025, 6, 2, 4, 30, 0, 0, time.UTC), RefundPercent: 100, Refund: skygate.Money{Amount: 4999, Currency: "USD"}},
			// 50 % of 4999 is 2499.5: rounded down to the minor unit.
			{Until: time.Date(2025, 6, 3, 2, 30, 0, 0, time.UTC), RefundPercent: 50, Refund: skygate.Money{Amount: 2499, Currency: "USD"}},
		}},
		{"SmallestFirstIsSorted", []skygate.CancellationRule{{HoursBefore: 1, RefundPercent: 10}, {HoursBefore: 48, RefundPercent: 90}},
			skygate.Money{Amount: 1000, Currency: "EUR"}, []skygate.CancellationTerm{
				{Until: time.Date(2025, 6, 1, 4, 30, 0, 0, time.UTC), RefundPercent: 90, Refund: skygate.Money{Amount: 900, Currency: "EUR"}},
				{Until: time.Date(2025, 6, 3, 3, 30, 0, 0, time.UTC), RefundPercent: 10, Refund: skygate.Money{Amount: 100, Currency: "EUR"}},
			}},
		{"FreePrice", seedRules[:1], skygate.Money{Currency: "USD"}, []skygate.CancellationTerm{
			{Until: time.Date(2025, 6, 2, 4, 30, 0, 0, time.UTC), RefundPercent: 100, Refund: skygate.Money{Currency: "USD"}},
		}},
		{"NoRules", nil, skygate.Money{Amount: 1000, Currency: "USD"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := skygate.CancellationTerms(tt.rules, flight, tt.price)
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if !got[i].Until.Equal(tt.want[i].Until) || got[i].RefundPercent != tt.want[i].RefundPercent || got[i].Refund != tt.want[i].Refund {
					t.Errorf("term %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestBookingRefundAt(t *testing.T) {
	t.Parallel()
	flight := time.Date(2025, 6, 3, 10, 0, 0, 0, time.UTC)
	price := skygate.Money{Amount: 3000, Currency: "USD"}
	usd := func(n int64) skygate.Money { return skygate.Money{Amount: n, Currency: "USD"} }
	priced := func(s skygate.BookingStatus) *skygate.Booking {
		return &skygate.Booking{Status: s, Price: &price, CancellationPolicy: skygate.CancellationTerms(seedRules, flight, price)}
	}
	tests := []struct {
		name        string
		b           *skygate.Booking
		at          time.Time
		refund, fee skygate.Money
		ok          bool
	}{
		{"PendingWholePrice", priced(skygate.BookingPending), flight.Add(-time.Hour), usd(3000), usd(0), true},
		{"IssuedWholePriceEvenLate", priced(skygate.BookingIssued), flight.Add(time.Hour), usd(3000), usd(0), true},
		{"ConfirmedEarly", priced(skygate.BookingConfirmed), flight.Add(-48 * time.Hour), usd(3000), usd(0), true},
		// A cancel exactly hours_before hours before the flight still gets the tier.
		{"ConfirmedAtFirstUntil", priced(skygate.BookingConfirmed), flight.Add(-24 * time.Hour), usd(3000), usd(0), true},
		{"ConfirmedJustAfterFirstUntil", priced(skygate.BookingConfirmed), flight.Add(-24*time.Hour + time.Nanosecond), usd(1500), usd(1500), true},
		{"ConfirmedAtSecondUntil", priced(skygate.BookingConfirmed), flight.Add(-2 * time.Hour), usd(1500), usd(1500), true},
		{"ConfirmedJustAfterSecondUntil", priced(skygate.BookingConfirmed), flight.Add(-2*time.Hour + time.Nanosecond), usd(0), usd(3000), true},
		{"ConfirmedHalf", priced(skygate.BookingConfirmed), flight.Add(-3 * time.Hour), usd(1500), usd(1500), true},
		{"ConfirmedLate", priced(skygate.BookingConfirmed), flight.Add(-time.Hour), usd(0), usd(3000), true},
		{"ConfirmedWithoutTerms", &skygate.Booking{Status: skygate.BookingConfirmed, Price: &price}, flight.Add(-48 * time.Hour), usd(0), usd(3000), true},
		{"Completed", priced(skygate.BookingCompleted), flight.Add(-48 * time.Hour), usd(0), usd(3000), true},
		{"ExpiredReleasedAlready", priced(skygate.BookingExpired), flight.Add(-48 * time.Hour), usd(0), usd(0), true},
		{"Canceled", priced(skygate.BookingCanceled), flight.Add(-48 * time.Hour), skygate.Money{}, skygate.Money{}, false},
		{"Unpriced", &skygate.Booking{Status: skygate.BookingConfirmed}, flight, skygate.Money{}, skygate.Money{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			refund, fee, ok := tt.b.RefundAt(tt.at)
			if refund != tt.refund || fee != tt.fee || ok != tt.ok {
				t.Errorf("RefundAt = %+v, %+v, %v; want %+v, %+v, %v", refund, fee, ok, tt.refund, tt.fee, tt.ok)
			}
		})
	}
}
