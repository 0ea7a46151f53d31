package esim_test

import (
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// TestAdminReads checks the employees' reads: the account's orders, eSIMs and billing
// with status, usage and package names but no activation code, CodeNotFound for an
// unknown account, and the partner's checks of filters and paging.
func TestAdminReads(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 3, 5000)
		o := MustOrder(t, b, b.pkg, 2)
		_, err := b.svc.Install(t.Context(), b.acc.ID, o.ESIMs[0].ICCID, "en")
		storetest.MustNoError(t, err, "Install")

		orders, err := b.svc.AdminOrders(t.Context(), b.acc.ID, "ru", skygate.Page{})
		storetest.MustNoError(t, err, "AdminOrders")
		if orders.Pagination.Total != 1 || orders.Data[0].ID != o.ID || len(orders.Data[0].ESIMs) != 2 {
			t.Fatalf("AdminOrders = %+v", orders)
		}
		esims, err := b.svc.AdminESIMs(t.Context(), b.acc.ID, "ru", skygate.ESIMFilter{Status: skygate.ESIMInstalled}, skygate.Page{})
		storetest.MustNoError(t, err, "AdminESIMs")
		if esims.Pagination.Total != 1 || esims.Data[0].ICCID != o.ESIMs[0].ICCID || esims.Data[0].Package.Name != b.pkg.Name.RU {
			t.Fatalf("AdminESIMs = %+v", esims)
		}
		for _, e := range append(orders.Data[0].ESIMs, esims.Data...) {
			if e.MatchingID != "" || e.ActivationCode != "" {
				t.Errorf("admin read of %s reveals %q %q", e.ICCID, e.MatchingID, e.ActivationCode)
			}
		}
		billing, err := b.svc.AdminBilling(t.Context(), b.acc.ID, skygate.Page{})
		storetest.MustNoError(t, err, "AdminBilling")
		if len(billing.Balances) != 1 || billing.Balances[0].Amount != 5000-2*b.pkg.Price.Amount || billing.Ledger.Pagination.Total != 2 {
			t.Errorf("AdminBilling = %+v", billing)
		}

		unknown := storetest.NewID()
		_, err = b.svc.AdminOrders(t.Context(), unknown, "en", skygate.Page{})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.AdminESIMs(t.Context(), unknown, "en", skygate.ESIMFilter{}, skygate.Page{})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.AdminBilling(t.Context(), unknown, skygate.Page{})
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.AdminESIMs(t.Context(), b.acc.ID, "en", skygate.ESIMFilter{Status: "active"}, skygate.Page{})
		storetest.WantCode(t, err, skygate.CodeBadRequest)
		_, err = b.svc.AdminOrders(t.Context(), b.acc.ID, "en", skygate.Page{Limit: 501})
		storetest.WantCode(t, err, skygate.CodeBadRequest)
	})
}
