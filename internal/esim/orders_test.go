package esim_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/storetest"
)

func TestOrder(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 5, 2000)
		req := esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 2, PartnerReference: "trip-42"}
		o, replayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k1", Lang: "ru", OrderRequest: req})
		storetest.MustNoError(t, err, "Order")
		if replayed || o.Status != skygate.ESIMOrderCompleted || len(o.ESIMs) != 2 {
			t.Fatalf("Order = %+v (replayed %v)", o, replayed)
		}
		if o.Total != (skygate.Money{Amount: 1000, Currency: "USD"}) || o.ClientID != "client-1" {
			t.Fatalf("order = %+v", o)
		}
		byICCID := map[string]esim.ProfileInput{}
		for _, p := range b.pool {
			byICCID[p.ICCID] = p
		}
		for _, e := range o.ESIMs {
			p := byICCID[e.ICCID]
			want := "LPA:1$smdp.example.com$" + p.MatchingID
			if e.ActivationCode != want || e.MatchingID != p.MatchingID {
				t.Fatalf("activation code = %q, want %q", e.ActivationCode, want)
			}
			if e.Package == nil || e.Package.Name != b.pkg.Name.RU {
				t.Fatalf("package = %+v, want the name in ru", e.Package)
			}
			if bytes.Contains(e.MatchingIDSealed, []byte(p.MatchingID)) {
				t.Fatal("the matching ID is stored in clear")
			}
		}

		// The same key and request: the same order, with activation codes, replayed.
		again, replayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k1", Lang: "ru", OrderRequest: req})
		storetest.MustNoError(t, err, "Order replay")
		if !replayed || again.ID != o.ID ||
			!reflect.DeepEqual(again.ICCIDs(), o.ICCIDs()) || again.ESIMs[0].ActivationCode == "" {
			t.Fatalf("replay = %+v", again)
		}
		// The same key and another request: a conflict, nothing written; an invalid
		// one too, rather than its validation error.
		_, _, err = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k1", Lang: "ru", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1}})
		storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
		_, _, err = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k1", Lang: "ru", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 0}})
		storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
		_, _, err = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k-new", Lang: "ru", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 0}})
		storetest.WantCode(t, err, skygate.CodeValidation)

		billing, err := b.svc.Billing(t.Context(), b.acc.ID, skygate.Page{})
		storetest.MustNoError(t, err, "Billing")
		if !reflect.DeepEqual(billing.Balances, []skygate.Balance{{Amount: 1000, Currency: "USD"}}) || billing.Ledger.Pagination.Total != 2 {
			t.Fatalf("billing = %+v", billing)
		}

		// The event carries ICCIDs, never activation codes.
		events := storetest.MustAccountEvents(t, s, b.acc.ID)
		if len(events) != 1 || events[0].Type != skygate.EventESIMOrderCompleted {
			t.Fatalf("events = %+v", events)
		}
		for _, e := range o.ESIMs {
			if strings.Contains(string(events[0].Data), e.MatchingID) || strings.Contains(string(events[0].Data), "LPA:") {
				t.Fatalf("event data leaks the activation code: %s", events[0].Data)
			}
		}
		var data skygate.ESIMOrderCompletedData
		storetest.MustNoError(t, json.Unmarshal(events[0].Data, &data), "decode event")
		if data.OrderID != o.ID || !slices.Equal(data.ICCIDs, o.ICCIDs()) || data.PartnerReference != "trip-42" {
			t.Fatalf("event data = %+v", data)
		}

		got, err := b.svc.GetOrder(t.Context(), b.acc.ID, o.ID, "en")
		storetest.MustNoError(t, err, "GetOrder")
		if got.ESIMs[0].ActivationCode != o.ESIMs[0].ActivationCode || got.ESIMs[0].Package.Name != b.pkg.Name.EN {
			t.Fatalf("GetOrder = %+v", got.ESIMs[0])
		}
		list, err := b.svc.ListOrders(t.Context(), b.acc.ID, "en", skygate.Page{})
		storetest.MustNoError(t, err, "ListOrders")
		if list.Pagination != (esim.Pagination{Count: 1, Offset: 0, Total: 1}) {
			t.Fatalf("ListOrders pagination = %+v", list.Pagination)
		}

		// The package withdrawn since: a new order of it is refused, the known key
		// is still answered from its record.
		retired := *b.pkg
		retired.Active = false
		MustSetPackages(t, b.svc, b.acc.ID, &retired)
		_, _, err = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k2", Lang: "ru", OrderRequest: req})
		storetest.WantCode(t, err, skygate.CodeValidation)
		again, replayed, err = b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client-1", IdempotencyKey: "k1", Lang: "ru", OrderRequest: req})
		storetest.MustNoError(t, err, "Order replay after the package was withdrawn")
		if !replayed || again.ID != o.ID {
			t.Fatalf("replay after the package was withdrawn = %+v", again)
		}
	})
}

func TestOrderRejected(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 1200)
		other := setup(t, s, 1, 1000)
		retired := MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage(func(p *skygate.ESIMPackage) { p.Active = false }))[0]
		tests := []struct {
			name   string
			key    string
			req    esim.OrderRequest
			code   string
			fields []string
		}{
			{"NoKey", "", esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1}, skygate.CodeBadRequest, nil},
			{"KeyNotASCII", "ключ", esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1}, skygate.CodeBadRequest, nil},
			{"Quantity0", "k", esim.OrderRequest{PackageID: b.pkg.ID}, skygate.CodeValidation, []string{"quantity"}},
			{"Quantity51", "k", esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 51}, skygate.CodeValidation, []string{"quantity"}},
			{"Everything", "k", esim.OrderRequest{Quantity: -1, PartnerReference: strings.Repeat("x", 129)}, skygate.CodeValidation,
				[]string{"quantity", "partner_reference", "package_id"}},
			{"ControlInReference", "k", esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1, PartnerReference: "a\nb"}, skygate.CodeValidation, []string{"partner_reference"}},
			{"OtherAccountsPackage", "k", esim.OrderRequest{PackageID: other.pkg.ID, Quantity: 1}, skygate.CodeValidation, []string{"package_id"}},
			{"RetiredPackage", "k", esim.OrderRequest{PackageID: retired.ID, Quantity: 1}, skygate.CodeValidation, []string{"package_id"}},
			{"NotAnID", "k", esim.OrderRequest{PackageID: "uz-1gb", Quantity: 1}, skygate.CodeValidation, []string{"package_id"}},
			{"InsufficientFunds", "k", esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 3}, skygate.CodeInsufficientFunds, nil},
			{"PoolExhausted", "k", esim.OrderRequest{PackageID: freePackage(t, b).ID, Quantity: 3}, skygate.CodePoolExhausted, nil},
		}
		for _, tt := range tests {
			_, _, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: tt.key, Lang: "en", OrderRequest: tt.req})
			storetest.WantCode(t, err, tt.code)
			if tt.fields != nil {
				var got []string
				for _, f := range err.(*skygate.Error).Fields {
					got = append(got, f.Field)
				}
				if !slices.Equal(got, tt.fields) {
					t.Errorf("%s: fields = %v, want %v", tt.name, got, tt.fields)
				}
			}
		}
		// Nothing was taken and the key "k" is still free.
		o, replayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: "k", Lang: "en", OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 2}})
		storetest.MustNoError(t, err, "Order after rejections")
		if replayed || len(o.ESIMs) != 2 {
			t.Fatalf("Order = %+v (replayed %v)", o, replayed)
		}
	})
}

// freePackage adds a free active package to b's account, so only the pool limits orders of it.
func freePackage(t *testing.T, b *bundle) *skygate.ESIMPackage {
	return MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage(storetest.WithPrice(0, "USD")))[0]
}

func TestOtherAccountIsNotFound(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 5000)
		o := MustOrder(t, b, b.pkg, 1)
		iccid := o.ESIMs[0].ICCID
		intruder := storetest.MustCreateAccount(t, s).ID
		ctx := t.Context()
		calls := map[string]func() error{
			"GetOrder": func() error { _, err := b.svc.GetOrder(ctx, intruder, o.ID, "en"); return err },
			"ESIM":     func() error { _, err := b.svc.ESIM(ctx, intruder, iccid, "en"); return err },
			"QRCode":   func() error { _, err := b.svc.QRCode(ctx, intruder, iccid); return err },
			"TopUp": func() error {
				_, _, err := b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: intruder, ClientID: "c", ICCID: iccid, IdempotencyKey: "k", Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
				return err
			},
			"Install":     func() error { _, err := b.svc.Install(ctx, intruder, iccid, "en"); return err },
			"Activate":    func() error { _, err := b.svc.Activate(ctx, intruder, iccid, "en"); return err },
			"ReportUsage": func() error { _, err := b.svc.ReportUsage(ctx, intruder, iccid, "en", 1); return err },
			"Package":     func() error { _, err := b.svc.Package(ctx, intruder, "en", b.pkg.ID); return err },
			"ESIMBadICCID": func() error {
				_, err := b.svc.ESIM(ctx, b.acc.ID, iccid[:18]+"x", "en")
				return err
			},
			"GetOrderBadID": func() error { _, err := b.svc.GetOrder(ctx, b.acc.ID, "not-an-id", "en"); return err },
		}
		for name, call := range calls {
			err := call()
			if skygate.ErrorCode(err) != skygate.CodeNotFound {
				t.Errorf("%s: error %v, want NotFound", name, err)
			}
		}
		list, err := b.svc.ListESIMs(ctx, intruder, "en", skygate.ESIMFilter{OrderID: o.ID}, skygate.Page{})
		storetest.MustNoError(t, err, "ListESIMs")
		orders, err := b.svc.ListOrders(ctx, intruder, "en", skygate.Page{})
		storetest.MustNoError(t, err, "ListOrders")
		billing, err := b.svc.Billing(ctx, intruder, skygate.Page{})
		storetest.MustNoError(t, err, "Billing")
		if list.Pagination.Total != 0 || orders.Pagination.Total != 0 || len(billing.Balances) != 0 || billing.Ledger.Pagination.Total != 0 {
			t.Fatalf("the intruder sees %+v %+v %+v", list, orders, billing)
		}
		if e, _ := b.svc.ESIM(ctx, b.acc.ID, iccid, "en"); e.Status != skygate.ESIMAssigned {
			t.Fatalf("the intruder changed the eSIM: %+v", e)
		}
	})
}

func TestQRCode(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		o := MustOrder(t, b, b.pkg, 1)
		data, err := b.svc.QRCode(t.Context(), b.acc.ID, o.ESIMs[0].ICCID)
		storetest.MustNoError(t, err, "QRCode")
		img, err := png.Decode(bytes.NewReader(data))
		storetest.MustNoError(t, err, "decode PNG")
		if w := img.Bounds().Dx(); w < 150 || w != img.Bounds().Dy() {
			t.Fatalf("QR image is %v", img.Bounds())
		}
	})
}

func TestKeyLifetime(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 3, 5000)
		req := esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1}
		first, _, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: "k", Lang: "en", OrderRequest: req})
		storetest.MustNoError(t, err, "Order")
		b.clock.Advance(72*time.Hour - time.Second)
		again, againReplayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: "k", Lang: "en", OrderRequest: req})
		storetest.MustNoError(t, err, "Order before expiry")
		b.clock.Advance(time.Second)
		later, laterReplayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c", IdempotencyKey: "k", Lang: "en", OrderRequest: req})
		storetest.MustNoError(t, err, "Order at expiry")
		if !againReplayed || again.ID != first.ID || laterReplayed || later.ID == first.ID {
			t.Fatalf("first %s, again %s (replayed %v), later %s (replayed %v)",
				first.ID, again.ID, againReplayed, later.ID, laterReplayed)
		}
	})
}

// TestReplayOfEarlierRecord replays an order whose record an earlier release wrote
// (the status beside a body without eSIMs, the fingerprint of the typed request): the
// answer is the order as it is now, with its activation codes.
func TestReplayOfEarlierRecord(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 2000)
		o := storetest.NewESIMOrder(b.pkg, 1)
		o.AccountID = b.acc.ID
		req := esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 1, PartnerReference: o.PartnerReference}
		fp, err := idempotency.FingerprintOf(req)
		storetest.MustNoError(t, err, "FingerprintOf")
		rec := storetest.NewESIMRecord(b.acc.ID, skygate.OperationESIMOrder, "earlier", o.ID, string(fp), storetest.T0)
		rec.Body = mustMarshal(t, o)
		known, err := s.CreateESIMOrder(t.Context(), rec, o, func(o *skygate.ESIMOrder) ([]*skygate.Event, error) {
			return skygate.ESIMOrderEvents(o, o.CreatedAt)
		})
		if err != nil || known != nil {
			t.Fatalf("CreateESIMOrder = %v, %v", known, err)
		}
		got, replayed, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: b.acc.ID, ClientID: "c",
			IdempotencyKey: "earlier", Lang: "en", OrderRequest: req})
		storetest.MustNoError(t, err, "Order")
		if !replayed || got.ID != o.ID || len(got.ESIMs) != 1 || !strings.HasPrefix(got.ESIMs[0].ActivationCode, "LPA:1$") {
			t.Fatalf("replay = %+v (replayed %v)", got, replayed)
		}
	})
}

func mustMarshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	storetest.MustNoError(tb, err, "Marshal")
	return b
}
