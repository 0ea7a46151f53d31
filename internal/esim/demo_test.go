package esim_test

import (
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// demoActor is who seeds the demo data, as serve does.
var demoActor = skygate.Actor{Subject: skygate.ActorSystem}

func TestSeedDemo(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		demo := storetest.MustCreateAccount(t, s).ID
		second := storetest.MustCreateAccount(t, s).ID
		for range 3 { // idempotent: nothing is added twice
			storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), demo, demoActor), "SeedDemo")
		}
		storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), second, demoActor), "SeedDemo of a second account")

		cat, err := b.svc.AdminCatalog(t.Context(), demo)
		storetest.MustNoError(t, err, "AdminCatalog")
		counts, err := b.svc.PoolCounts(t.Context(), demo)
		storetest.MustNoError(t, err, "PoolCounts")
		billing, err := b.svc.Billing(t.Context(), demo, skygate.Page{})
		storetest.MustNoError(t, err, "Billing")
		if len(cat.Packages) != 4 || cat.Version != 1 || counts.Total != esim.DemoPoolSize ||
			billing.Ledger.Pagination.Total != 1 || billing.Balances[0] != (skygate.Balance{Amount: esim.DemoCredit.Amount, Currency: esim.DemoCredit.Currency}) {
			t.Fatalf("demo data: %d packages (v%d), pool %+v, billing %+v", len(cat.Packages), cat.Version, counts, billing)
		}
		// Each part is audited once, as the system's write, however often seeding runs.
		for _, action := range []string{"esim.packages.set", "esim.pool.import", "esim.credit"} {
			got, total, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{Action: action, AccountID: demo}, skygate.Page{})
			storetest.MustNoError(t, err, "ListAuditEvents")
			if total != 1 || got[0].Actor != skygate.ActorSystem || got[0].TargetID != demo {
				t.Fatalf("%s: %d audit records %+v, want one by %s", action, total, got, skygate.ActorSystem)
			}
		}
		for _, p := range cat.Packages {
			for _, lang := range skygate.Languages {
				if p.Name.In(lang) == "" {
					t.Fatalf("package %s has no %s name", p.ID, lang)
				}
			}
		}

		// The sandbox works at once: order, install, activate, use.
		o, _, err := b.svc.Order(t.Context(), esim.OrderCommand{AccountID: demo, ClientID: "c", IdempotencyKey: "demo-1", Lang: "uz", OrderRequest: esim.OrderRequest{PackageID: cat.Packages[0].ID, Quantity: 2}})
		storetest.MustNoError(t, err, "Order")
		e := o.ESIMs[0]
		if e.ActivationCode != "LPA:1$"+esim.DemoSMDPAddress+"$"+e.MatchingID || !skygate.IsICCID(e.ICCID) {
			t.Fatalf("demo eSIM = %+v", e)
		}
		for _, step := range []func() (*skygate.ESIM, error){
			func() (*skygate.ESIM, error) { return b.svc.Install(t.Context(), demo, e.ICCID, "en") },
			func() (*skygate.ESIM, error) { return b.svc.Activate(t.Context(), demo, e.ICCID, "en") },
			func() (*skygate.ESIM, error) { return b.svc.ReportUsage(t.Context(), demo, e.ICCID, "en", 900) },
		} {
			_, err := step()
			storetest.MustNoError(t, err, "sandbox step")
		}
	})
}

func TestDemoProfiles(t *testing.T) {
	t.Parallel()
	a, b := esim.DemoProfiles("account-a"), esim.DemoProfiles("account-b")
	seen := map[string]bool{}
	for _, p := range append(a, b...) {
		if !skygate.IsICCID(p.ICCID) || !skygate.IsMatchingID(p.MatchingID) || seen[p.ICCID] {
			t.Fatalf("bad or repeated demo profile %+v", p)
		}
		seen[p.ICCID] = true
	}
	first, again, other := esim.DemoPackages("account-a"), esim.DemoPackages("account-a"), esim.DemoPackages("account-b")
	if first[0].ID != again[0].ID || first[0].ID == other[0].ID || !skygate.IsID(first[0].ID) {
		t.Fatal("demo package ids are not stable per account and distinct across accounts")
	}
}

// TestSeedDemoConcurrently starts several seeds at once, as replicas starting together
// would: the account ends with one set of demo data.
func TestSeedDemoConcurrently(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		demo := storetest.MustCreateAccount(t, s).ID
		errs := make(chan error, 4)
		for range 4 {
			go func() { errs <- b.svc.SeedDemo(t.Context(), demo, demoActor) }()
		}
		for range 4 {
			storetest.MustNoError(t, <-errs, "SeedDemo")
		}
		billing, err := b.svc.Billing(t.Context(), demo, skygate.Page{})
		storetest.MustNoError(t, err, "Billing")
		counts, err := b.svc.PoolCounts(t.Context(), demo)
		storetest.MustNoError(t, err, "PoolCounts")
		cat, err := b.svc.AdminCatalog(t.Context(), demo)
		storetest.MustNoError(t, err, "AdminCatalog")
		if billing.Balances[0] != (skygate.Balance{Amount: esim.DemoCredit.Amount, Currency: esim.DemoCredit.Currency}) || counts.Total != esim.DemoPoolSize || len(cat.Packages) != 4 {
			t.Fatalf("balances %+v, pool %d, %d packages", billing.Balances, counts.Total, len(cat.Packages))
		}
	})
}
