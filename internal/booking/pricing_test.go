package booking_test

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/storetest"
)

// flightAt is ftName's flight time in pricedRequest: 10:00 UTC on its service date.
var flightAt = time.Date(2025, 6, 3, 10, 0, 0, 0, time.UTC)

// usd is amount US cents.
func usd(amount int64) skygate.Money { return skygate.Money{Amount: amount, Currency: "USD"} }

// pricedRequest is request() with the flight's scheduled time and an adult and a
// child; mods change it.
func pricedRequest(mods ...func(r map[string]any)) map[string]any {
	return request(append([]func(map[string]any){func(r map[string]any) {
		r["flight"] = map[string]any{"number": "HY601", "direction": "departure", "scheduled_at": "2025-06-03T10:00"}
		r["passengers"] = []any{
			map[string]any{"first_name": "Ada", "last_name": "Lovelace"},
			map[string]any{"first_name": "Byron", "last_name": "Lovelace", "type": "child"},
		}
	}}, mods...)...)
}

// withPrices gives the bundle's account a price list: ftName at 50.00 USD a adult
// (37.50 a child), enough credit for any test's bookings.
func (b *bundle) withPrices(tb testing.TB) {
	tb.Helper()
	storetest.MustSetFastTrackPrices(tb, b.store, b.account, storetest.NewFastTrackPrice(ftName, 5000))
	storetest.MustCredit(tb, b.store, b.account, 1_000_000, "USD")
}

// quote asks for a quote of r for the bundle's account.
func (b *bundle) quote(tb testing.TB, accountID string, r map[string]any) (*skygate.Quote, error) {
	tb.Helper()
	cmd := commandOf(tb, accountID, "client-1", "unused", mustJSON(tb, r))
	return b.svc.Quote(tb.Context(), booking.QuoteCommand{AccountID: accountID, ClientID: "client-1", Request: cmd.Request})
}

func TestCreateWithoutPriceListIsUnpriced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for name, r := range map[string]map[string]any{"NoScheduledTime": request(), "ScheduledTime": pricedRequest()} {
		got := b.MustCreate(t, r)
		if got.Price != nil || got.CancellationPolicy != nil || got.QuoteID != "" {
			t.Errorf("%s: an account without a price list got commerce: %+v", name, got)
		}
	}
}

func TestCreatePricesFromList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.withPrices(t)
	got := b.MustCreate(t, pricedRequest())
	if got.Price == nil || *got.Price != usd(8750) {
		t.Fatalf("price %+v, want 87.50 USD (adult 50.00 + child 37.50)", got.Price)
	}
	want := []skygate.CancellationTerm{
		{Until: flightAt.Add(-24 * time.Hour), RefundPercent: 100, Refund: usd(8750)},
		{Until: flightAt.Add(-2 * time.Hour), RefundPercent: 50, Refund: usd(4375)},
	}
	if len(got.CancellationPolicy) != len(want) {
		t.Fatalf("policy %+v, want %+v", got.CancellationPolicy, want)
	}
	for i, term := range got.CancellationPolicy {
		if !term.Until.Equal(want[i].Until) || term.Refund != want[i].Refund || term.RefundPercent != want[i].RefundPercent {
			t.Errorf("term %d = %+v, want %+v", i, term, want[i])
		}
	}
	stored, err := b.svc.Get(t.Context(), b.account, got.ID)
	storetest.MustNoError(t, err, "Get")
	if *stored.Price != *got.Price {
		t.Errorf("stored price %+v, want %+v", stored.Price, got.Price)
	}
}

func TestCreateWithPriceListRefuses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.withPrices(t)
	tests := []struct {
		name  string
		r     map[string]any
		field string
	}{
		{"NoScheduledTime", request(), "flight.scheduled_at"},
		{"UnpricedFastTrack", pricedRequest(func(r map[string]any) { r["fast_track_id"] = ftNothing }), "fast_track_id"},
		{"UnknownQuote", pricedRequest(func(r map[string]any) { r["quote_id"] = skygate.NewID() }), "quote_id"},
		{"MalformedQuote", pricedRequest(func(r map[string]any) { r["quote_id"] = "nope" }), "quote_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := "key-" + storetest.NewID()
			_, _, err := b.create(t, b.account, "client-1", key, mustJSON(t, tt.r))
			wantField(t, err, tt.field)
			// The rejected request did not use up its key.
			_, replayed, err := b.create(t, b.account, "client-1", key, mustJSON(t, pricedRequest()))
			if err != nil || replayed {
				t.Fatalf("the key after a refusal: %v (replayed %v)", err, replayed)
			}
		})
	}
}

// TestCreateWithPriceListReportsAllAtOnce: a request invalid elsewhere is also told
// what the price list asks of it, in one answer, each field once, and the refusal
// does not use up its key.
func TestCreateWithPriceListReportsAllAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.withPrices(t)
	badReference := func(r map[string]any) { r["partner_reference"] = "PNR\x01" }
	tests := []struct {
		name   string
		r      map[string]any
		fields []string
	}{
		{"NoScheduledTimeAndBadReference", request(badReference), []string{"partner_reference", "flight.scheduled_at"}},
		{"UnpricedAndBadReference", pricedRequest(badReference, func(r map[string]any) { r["fast_track_id"] = ftNothing }),
			[]string{"partner_reference", "fast_track_id"}},
		// An unknown fast-track is named once, by validation.
		{"UnknownFastTrack", request(func(r map[string]any) { r["fast_track_id"] = storetest.NewID() }),
			[]string{"fast_track_id", "flight.scheduled_at"}},
		{"NoFlight", request(func(r map[string]any) { delete(r, "flight") }), []string{"flight", "flight.scheduled_at"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := "key-" + storetest.NewID()
			_, _, err := b.create(t, b.account, "client-1", key, mustJSON(t, tt.r))
			storetest.WantCode(t, err, skygate.CodeValidation)
			var got []string
			for _, f := range err.(*skygate.Error).Fields {
				got = append(got, f.Field)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.fields))
			if !slices.Equal(got, want) {
				t.Fatalf("fields %v, want %v", got, want)
			}
			_, replayed, err := b.create(t, b.account, "client-1", key, mustJSON(t, pricedRequest()))
			if err != nil || replayed {
				t.Fatalf("the key after a refusal: %v (replayed %v)", err, replayed)
			}
		})
	}
	// Without a price list nothing is added.
	_, _, err := b.create(t, b.other, "client-1", "key-"+storetest.NewID(), mustJSON(t, request(badReference)))
	storetest.WantCode(t, err, skygate.CodeValidation)
	if f := err.(*skygate.Error).Fields; len(f) != 1 || f[0].Field != "partner_reference" {
		t.Fatalf("an account without a price list: %+v", f)
	}
}

// wantField fails unless err is CodeValidation naming field.
func wantField(tb testing.TB, err error, field string) {
	tb.Helper()
	storetest.WantCode(tb, err, skygate.CodeValidation)
	e, _ := err.(*skygate.Error)
	for _, f := range e.Fields {
		if f.Field == field {
			return
		}
	}
	tb.Fatalf("%v does not name %s", err, field)
}

func TestQuoteNeedsPrice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.quote(t, b.account, pricedRequest())
	wantField(t, err, "fast_track_id")
	b.withPrices(t)
	_, err = b.quote(t, b.account, pricedRequest(func(r map[string]any) { r["fast_track_id"] = ftNothing }))
	wantField(t, err, "fast_track_id")
	_, err = b.quote(t, b.account, request())
	wantField(t, err, "flight.scheduled_at")
	_, err = b.quote(t, b.account, pricedRequest(func(r map[string]any) { r["quote_id"] = skygate.NewID() }))
	wantField(t, err, "quote_id")
	_, err = b.quote(t, b.account, pricedRequest(func(r map[string]any) { passenger(r)["last_name"] = "" }))
	wantField(t, err, "passengers[0].last_name")
}

func TestQuoteLocksPrice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.withPrices(t)
	q, err := b.quote(t, b.account, pricedRequest())
	storetest.MustNoError(t, err, "Quote")
	if q.Price != usd(8750) || len(q.CancellationPolicy) != 2 || !q.ExpiresAt.Equal(Start.Add(15*time.Minute)) {
		t.Fatalf("quote %+v", q)
	}
	// A new price list does not change a quoted price.
	storetest.MustSetFastTrackPrices(t, b.store, b.account, storetest.NewFastTrackPrice(ftName, 9000))
	b.clock.Advance(15*time.Minute - time.Microsecond)
	key := "key-" + storetest.NewID()
	body := mustJSON(t, pricedRequest(func(r map[string]any) { r["quote_id"] = q.ID }))
	got, replayed, err := b.create(t, b.account, "client-1", key, body)
	if err != nil || replayed {
		t.Fatalf("Create with the quote: %v (replayed %v)", err, replayed)
	}
	if *got.Price != q.Price || got.QuoteID != q.ID || got.CancellationPolicy[1].Refund != q.CancellationPolicy[1].Refund {
		t.Errorf("booking %+v does not carry quote %+v", got, q)
	}
	// The same request under its key replays, though the quote is used now.
	again, replayed, err := b.create(t, b.account, "client-1", key, body)
	if err != nil || !replayed || again.ID != got.ID {
		t.Fatalf("replay: %v, replayed %v, %s want %s", err, replayed, again.ID, got.ID)
	}
	// Another key cannot use it again.
	_, _, err = b.create(t, b.account, "client-1", "key-"+storetest.NewID(), body)
	storetest.WantCode(t, err, skygate.CodeQuoteUsed)
}

func TestQuoteRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		advance      time.Duration
		mod          func(r map[string]any)
		otherAccount bool
		code         string
	}{
		{"Expired", 15 * time.Minute, nil, false, skygate.CodeQuoteExpired},
		{"OtherAccount", 0, nil, true, skygate.CodeValidation},
		{"OtherTime", 0, func(r map[string]any) { r["flight"].(map[string]any)["scheduled_at"] = "2025-06-03T11:00" }, false, skygate.CodeValidation},
		{"OtherTypes", 0, func(r map[string]any) { r["passengers"].([]any)[1].(map[string]any)["type"] = "adult" }, false, skygate.CodeValidation},
		{"OtherFastTrack", 0, nil, false, skygate.CodeValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.withPrices(t)
			storetest.MustSetFastTrackPrices(t, b.store, b.other, storetest.NewFastTrackPrice(ftName, 5000))
			q, err := b.quote(t, b.account, pricedRequest())
			storetest.MustNoError(t, err, "Quote")
			b.clock.Advance(tt.advance)
			account := b.account
			if tt.otherAccount {
				account = b.other
			}
			r := pricedRequest(func(r map[string]any) { r["quote_id"] = q.ID })
			if tt.mod != nil {
				tt.mod(r)
			}
			if tt.name == "OtherFastTrack" {
				r = fullRequest()
				r["flight"] = map[string]any{"number": "HY601", "direction": "departure", "scheduled_at": "2025-06-03T10:00"}
				r["quote_id"] = q.ID
			}
			_, _, err = b.create(t, account, "client-1", "key-"+storetest.NewID(), mustJSON(t, r))
			storetest.WantCode(t, err, tt.code)
			if tt.code == skygate.CodeValidation {
				wantField(t, err, "quote_id")
			}
		})
	}
}
