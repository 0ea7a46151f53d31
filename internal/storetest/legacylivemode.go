package storetest

import (
	"testing"

	"github.com/skygate/skygate"
)

// RunLegacyLivemodeTest writes rows as the release before versioned events did, on a
// store migrated up to the migration before the one that records livemode: a booking
// and an eSIM order of a sandbox application and of a production application, each
// with its event, and a webhook.test event. It then migrates and checks that the
// sandbox application's objects and their events are not live, the others are, and
// that every event takes the first api_version.
func RunLegacyLivemodeTest(t *testing.T, e LegacyEngine) {
	s := e.Store
	acc := MustCreateAccount(t, s)
	exec := func(query string, args ...any) { t.Helper(); e.Exec(t, query, args...) }
	created := e.Time(T0)
	// The package is written in the old schema's columns: the store's own write names
	// columns that later migrations add.
	pkg := &skygate.ESIMPackage{ID: NewID(), Price: skygate.Money{Amount: 500, Currency: "USD"}}
	exec(`INSERT INTO esim_packages (id, account_id, seq, name, countries, data_mb, validity_days,
		price_amount, price_currency, top_up, active, created_at, updated_at)
		VALUES (?, ?, 1, ?, '["UZ"]', 1024, 7, ?, ?, false, true, ?, ?)`,
		pkg.ID, acc.ID, `{"en":"P","ru":"P","uz":"P","kk":"P"}`, pkg.Price.Amount, pkg.Price.Currency, created, created)
	event := func(typ, data string) string {
		id := NewID()
		exec(`INSERT INTO events (id, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)`,
			id, acc.ID, typ, data, created)
		return id
	}
	type written struct {
		live                               bool
		booking, order, bookingEv, orderEv string
	}
	var rows []written
	for _, sandbox := range []bool{true, false} {
		app := MustCreateApplication(t, s, acc.ID, func(a *skygate.Application) { a.Sandbox = sandbox })
		w := written{live: !sandbox, booking: NewID(), order: NewID()}
		exec(`INSERT INTO bookings (id, account_id, client_id, status, fast_track_id, service_date, flight,
			passengers, partner_reference, status_history, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.booking, acc.ID, app.ClientID, "Pending", NewID(), "2025-03-20", `{"number":"HY601","direction":"departure"}`,
			`[{"first_name":"Ada","last_name":"Lovelace"}]`, "ref", `[{"status":"Pending","at":"2025-03-14T12:00:00Z"}]`,
			created, created)
		exec(`INSERT INTO esim_orders (id, account_id, client_id, package_id, quantity, partner_reference, status,
			unit_amount, total_amount, currency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			w.order, acc.ID, app.ClientID, pkg.ID, 1, "", string(skygate.ESIMOrderCompleted),
			pkg.Price.Amount, pkg.Price.Amount, pkg.Price.Currency, created)
		w.bookingEv = event(skygate.EventBookingStatusChanged, `{"booking_id":"`+w.booking+`","status":"Pending"}`)
		w.orderEv = event(skygate.EventESIMOrderCompleted, `{"order_id":"`+w.order+`","quantity":1}`)
		rows = append(rows, w)
	}
	test := event(skygate.EventWebhookTest, `{"subscription_id":"`+NewID()+`","message":"m"}`)

	MustNoError(t, e.Migrate(), "migrate")

	wantEvent := func(id string, live bool) {
		t.Helper()
		got, err := s.Event(t.Context(), acc.ID, id)
		MustNoError(t, err, "Event")
		wantEqual(t, got.Type+" livemode", got.Livemode, live)
		wantEqual(t, got.Type+" api_version", got.APIVersion, skygate.APIVersion)
	}
	for _, w := range rows {
		wantEqual(t, "booking livemode", MustBooking(t, s, acc.ID, w.booking).Livemode, w.live)
		o, err := s.ESIMOrder(t.Context(), acc.ID, w.order)
		MustNoError(t, err, "ESIMOrder")
		wantEqual(t, "order livemode", o.Livemode, w.live)
		wantEvent(w.bookingEv, w.live)
		wantEvent(w.orderEv, w.live)
	}
	wantEvent(test, true)
}
