package esim_test

import (
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// wantNoSecrets fails unless e carries neither its matching ID, activation code nor
// install links: what a Canceled eSIM looks like to its owner.
func wantNoSecrets(tb testing.TB, where string, e *skygate.ESIM) {
	tb.Helper()
	if e.MatchingID != "" || e.ActivationCode != "" || e.InstallLinks != nil {
		tb.Errorf("%s: a Canceled eSIM reveals %q %q %+v", where, e.MatchingID, e.ActivationCode, e.InstallLinks)
	}
}

// TestCanceledESIMHidesItsCode: a Canceled (refunded) eSIM never shows its activation
// code again: not in the cancel's answer, nor any later owner read (one, list, order,
// order list, order replay, top-up replay), nor as a QR code or instructions, and it
// takes no more changes (InvalidESIMStatus), while its sibling still shows its code.
func TestCanceledESIMHidesItsCode(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 5000)
		ctx := t.Context()
		orderCmd := esim.OrderCommand{AccountID: b.acc.ID, ClientID: "client", IdempotencyKey: "key-" + storetest.NewID(), Lang: "en",
			OrderRequest: esim.OrderRequest{PackageID: b.pkg.ID, Quantity: 2}}
		o, _, err := b.svc.Order(ctx, orderCmd)
		storetest.MustNoError(t, err, "Order")
		iccid, sibling := o.ESIMs[0].ICCID, o.ESIMs[1].ICCID
		topUpCmd := esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "tu-" + storetest.NewID(), Lang: "en",
			TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}}
		_, _, err = b.svc.TopUp(ctx, topUpCmd)
		storetest.MustNoError(t, err, "TopUp")

		e, err := b.svc.Cancel(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Cancel")
		if e.Status != skygate.ESIMCanceled {
			t.Fatalf("after Cancel: %s", e.Status)
		}
		wantNoSecrets(t, "Cancel", e)
		again, err := b.svc.Cancel(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Cancel again")
		wantNoSecrets(t, "Cancel again", again)

		got, err := b.svc.ESIM(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "ESIM")
		wantNoSecrets(t, "ESIM", got)
		if got.SMDPAddress == "" || got.Package == nil {
			t.Errorf("ESIM of a Canceled eSIM lost its public fields: %+v", got)
		}
		list, err := b.svc.ListESIMs(ctx, b.acc.ID, "en", skygate.ESIMFilter{}, skygate.Page{Limit: 10})
		storetest.MustNoError(t, err, "ListESIMs")
		order, err := b.svc.GetOrder(ctx, b.acc.ID, o.ID, "en")
		storetest.MustNoError(t, err, "GetOrder")
		orders, err := b.svc.ListOrders(ctx, b.acc.ID, "en", skygate.Page{Limit: 10})
		storetest.MustNoError(t, err, "ListOrders")
		replay, replayed, err := b.svc.Order(ctx, orderCmd)
		storetest.MustNoError(t, err, "Order replay")
		tu, tuReplayed, err := b.svc.TopUp(ctx, topUpCmd)
		storetest.MustNoError(t, err, "TopUp replay")
		if !replayed || !tuReplayed {
			t.Fatalf("replayed: order %v, top-up %v", replayed, tuReplayed)
		}
		wantNoSecrets(t, "TopUp replay", tu.ESIM)
		reads := map[string][]*skygate.ESIM{"ListESIMs": list.Data, "GetOrder": order.ESIMs, "Order replay": replay.ESIMs}
		for _, od := range orders.Data {
			reads["ListOrders"] = append(reads["ListOrders"], od.ESIMs...)
		}
		for where, esims := range reads {
			seen := 0
			for _, x := range esims {
				switch x.ICCID {
				case iccid:
					seen++
					wantNoSecrets(t, where, x)
				case sibling:
					seen++
					if x.ActivationCode == "" || x.InstallLinks == nil {
						t.Errorf("%s: the sibling lost its code: %+v", where, x)
					}
				}
			}
			if seen != 2 {
				t.Errorf("%s: saw %d of the order's eSIMs", where, seen)
			}
		}

		_, err = b.svc.QRCode(ctx, b.acc.ID, iccid)
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		_, err = b.svc.Instructions(ctx, b.acc.ID, iccid, "en")
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		_, err = b.svc.QRCode(ctx, b.acc.ID, sibling)
		storetest.MustNoError(t, err, "QRCode of the sibling")

		// Any change of a Canceled eSIM is InvalidESIMStatus.
		_, _, err = b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "late", Lang: "en",
			TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		_, err = b.svc.Install(ctx, b.acc.ID, iccid, "en")
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		_, err = b.svc.Activate(ctx, b.acc.ID, iccid, "en")
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		_, err = b.svc.ReportUsage(ctx, b.acc.ID, iccid, "en", 1)
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)

		// The hosted page shows the state only.
		page, err := b.svc.InstallPage(ctx, b.svc.InstallToken(b.acc.ID, iccid), "en")
		storetest.MustNoError(t, err, "InstallPage")
		if page.Installable || page.QR != nil {
			t.Errorf("install page of a Canceled eSIM: %+v", page)
		}
		wantNoSecrets(t, "InstallPage", page.ESIM)
	})
}
