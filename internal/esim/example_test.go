package esim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
)

// Example shows the life of an eSIM through the service: the demo data, an order with
// an Idempotency-Key, its replay, and the sandbox driving the eSIM to Depleted.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "esim-example")
	defer os.RemoveAll(dir)
	master, _ := seal.New(seal.NewMasterKey())
	records, _ := seal.New(master.DeriveKey(seal.PurposeStoreRecords))
	db, _ := sqlite.Open(ctx, filepath.Join(dir, "skygate.db"), records, nil)
	defer db.Close()
	_ = db.Migrate(ctx)

	box, _ := seal.New(master.DeriveKey(seal.PurposeESIMMatchingID))
	svc := esim.New(esim.Config{Store: db, Sealer: box})

	now := time.Now()
	acc := &skygate.Account{ID: skygate.NewID(), Name: "demo", Status: skygate.AccountActive, CreatedAt: now, UpdatedAt: now}
	system := skygate.Actor{Subject: skygate.ActorSystem}
	created, _ := system.Audit(now, "account.create", "account", acc.ID, acc.ID, nil)
	_ = db.CreateAccount(ctx, acc, created)
	_ = svc.SeedDemo(ctx, acc.ID, system)
	uzbekistan := esim.DemoPackages(acc.ID)[0]

	req := esim.OrderRequest{PackageID: uzbekistan.ID, Quantity: 1, PartnerReference: "trip-1"}
	cmd := esim.OrderCommand{AccountID: acc.ID, ClientID: "client", IdempotencyKey: "order-1", Lang: "en", OrderRequest: req}
	o, replayed, err := svc.Order(ctx, cmd)
	if err != nil {
		fmt.Println(err)
		return
	}
	e := o.ESIMs[0]
	fmt.Println(replayed, o.Total.Amount, o.Total.Currency, e.Status)
	fmt.Println(strings.HasPrefix(e.ActivationCode, "LPA:1$"+esim.DemoSMDPAddress+"$DEMO-"))

	again, replayed, _ := svc.Order(ctx, cmd)
	fmt.Println("replayed:", replayed, again.ID == o.ID)

	_, _ = svc.Install(ctx, acc.ID, e.ICCID, "en")
	_, _ = svc.Activate(ctx, acc.ID, e.ICCID, "en")
	after, _ := svc.ReportUsage(ctx, acc.ID, e.ICCID, "en", 1024)
	fmt.Println(after.Status, *after.Usage.RemainingMB)

	billing, _ := svc.Billing(ctx, acc.ID, skygate.Page{})
	fmt.Println(billing.Balances[0].Amount, billing.Ledger.Data[0].Kind, billing.Ledger.Data[0].Amount.Amount)
	// Output:
	// false 350 USD Assigned
	// true
	// replayed: true true
	// Depleted 0
	// 99650 charge -350
}
