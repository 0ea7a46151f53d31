package skygate_test

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestBookingLedgerMoves(t *testing.T) {
	t.Parallel()
	eur := func(n int64) skygate.Money { return skygate.Money{Amount: n, Currency: "EUR"} }
	price := eur(4500)
	booking := func(status skygate.BookingStatus, price, refund *skygate.Money) *skygate.Booking {
		return &skygate.Booking{ID: "b", Status: status, Price: price, Refund: refund}
	}
	zero, some := eur(0), eur(2250)
	reserve := skygate.LedgerMove{Kind: skygate.LedgerReservation, Amount: eur(-4500), Reserved: 4500}
	release := skygate.LedgerMove{Kind: skygate.LedgerRelease, Amount: eur(4500), Reserved: -4500}
	charge := skygate.LedgerMove{Kind: skygate.LedgerCharge, Amount: eur(-4500)}
	tests := []struct {
		name          string
		before, after *skygate.Booking
		want          []skygate.LedgerMove
	}{
		{"create priced", nil, booking(skygate.BookingPending, &price, nil), []skygate.LedgerMove{reserve}},
		{"create unpriced", nil, booking(skygate.BookingPending, nil, nil), nil},
		{"create free", nil, booking(skygate.BookingPending, &zero, nil), nil},
		{"issue", booking(skygate.BookingPending, &price, nil), booking(skygate.BookingIssued, &price, nil), nil},
		{"confirm from Issued", booking(skygate.BookingIssued, &price, nil), booking(skygate.BookingConfirmed, &price, nil), []skygate.LedgerMove{release, charge}},
		{"confirm from Pending", booking(skygate.BookingPending, &price, nil), booking(skygate.BookingConfirmed, &price, nil), []skygate.LedgerMove{release, charge}},
		{"expire Pending", booking(skygate.BookingPending, &price, nil), booking(skygate.BookingExpired, &price, nil), []skygate.LedgerMove{release}},
		{"expire Issued", booking(skygate.BookingIssued, &price, nil), booking(skygate.BookingExpired, &price, nil), []skygate.LedgerMove{release}},
		{"cancel Issued", booking(skygate.BookingIssued, &price, nil), booking(skygate.BookingCanceled, &price, &price), []skygate.LedgerMove{release}},
		{"cancel Confirmed with refund", booking(skygate.BookingConfirmed, &price, nil), booking(skygate.BookingCanceled, &price, &some), []skygate.LedgerMove{{Kind: skygate.LedgerRefund, Amount: some}}},
		{"cancel Confirmed refund zero", booking(skygate.BookingConfirmed, &price, nil), booking(skygate.BookingCanceled, &price, &zero), nil},
		{"cancel Confirmed no refund", booking(skygate.BookingConfirmed, &price, nil), booking(skygate.BookingCanceled, &price, nil), nil},
		{"cancel Completed with refund", booking(skygate.BookingCompleted, &price, nil), booking(skygate.BookingCanceled, &price, &some), []skygate.LedgerMove{{Kind: skygate.LedgerRefund, Amount: some}}},
		{"complete", booking(skygate.BookingConfirmed, &price, nil), booking(skygate.BookingCompleted, &price, nil), nil},
		{"same status", booking(skygate.BookingIssued, &price, nil), booking(skygate.BookingIssued, &price, nil), nil},
		{"unpriced confirm", booking(skygate.BookingIssued, nil, nil), booking(skygate.BookingConfirmed, nil, nil), nil},
		{"free cancel", booking(skygate.BookingConfirmed, &zero, nil), booking(skygate.BookingCanceled, &zero, &zero), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := skygate.BookingLedgerMoves(tt.before, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("moves = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBalanceLowEvents(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name                     string
		before, after, threshold int64
		want                     bool
	}{
		{"crosses", 1000, 400, 500, true},
		{"from exactly the threshold", 500, 499, 500, true},
		{"lands on the threshold", 900, 500, 500, false},
		{"already below", 400, 300, 500, false},
		{"stays above", 2000, 1000, 500, false},
		{"threshold zero never fires", 100, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events, err := skygate.BalanceLowEvents("acc", "EUR", tt.before, tt.after, tt.threshold, true, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(events) == 1; got != tt.want {
				t.Fatalf("fired = %v, want %v", got, tt.want)
			}
			if tt.want {
				e := events[0]
				if e.Type != skygate.EventBillingBalanceLow || e.OrderingKey != "balance:EUR" || !e.Livemode ||
					string(e.Data) != `{"currency":"EUR","balance":`+itoa(tt.after)+`,"threshold":`+itoa(tt.threshold)+`}` {
					t.Fatalf("event %+v data %s", e, e.Data)
				}
			}
		})
	}
}

func TestBillingSettingsValidate(t *testing.T) {
	t.Parallel()
	s := skygate.BillingSettings{LowBalanceThresholds: []skygate.Money{
		{Amount: 100, Currency: "EUR"}, {Amount: -1, Currency: "usd"}, {Amount: 5, Currency: "EUR"},
		{Amount: skygate.MaxMoneyAmount + 1, Currency: "GBP"},
	}}
	var fields []string
	for _, e := range s.Validate() {
		fields = append(fields, e.Field)
	}
	want := []string{"low_balance_thresholds[1].amount", "low_balance_thresholds[1].currency",
		"low_balance_thresholds[2].currency", "low_balance_thresholds[3].amount"}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields %v, want %v", fields, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
