package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
)

// seedESIM gives the account one package, a pool of n profiles and a balance for
// them, the way the admin API would, and returns the package id. It opens the
// server's database as a second process, as `skygate bootstrap` does.
func seedESIM(ctx context.Context, databaseURL, accountID string, n int) (string, error) {
	master, err := config.ParseMasterKey(benchMasterKey)
	if err != nil {
		return "", err
	}
	box, err := seal.New(master)
	if err != nil {
		return "", err
	}
	sealer, err := seal.New(box.DeriveKey(seal.PurposeESIMMatchingID))
	if err != nil {
		return "", err
	}
	records, err := seal.New(box.DeriveKey(seal.PurposeStoreRecords))
	if err != nil {
		return "", err
	}
	var db esim.Store
	if path, ok := strings.CutPrefix(databaseURL, "sqlite://"); ok {
		st, e := sqlite.Open(ctx, path, records, nil)
		if e == nil {
			defer func() { _ = st.Close() }() // the seed's own error is checked
		}
		db, err = st, e
	} else {
		st, e := postgres.Open(ctx, databaseURL, 0, records, nil)
		if e == nil {
			defer func() { _ = st.Close() }() // the seed's own error is checked
		}
		db, err = st, e
	}
	if err != nil {
		return "", err
	}
	svc := esim.New(esim.Config{Store: db, Sealer: sealer})
	// The store refuses these admin writes without an audit record.
	bench := skygate.Actor{Subject: "skygate-bench"}
	audit := func(action string) *skygate.AuditEvent {
		e, _ := bench.Audit(time.Now(), action, "account", accountID, accountID, nil)
		return e
	}
	pkg := esim.DemoPackages(accountID)[0]
	if _, err := svc.SetPackages(ctx, accountID, []*skygate.ESIMPackage{pkg}, audit("esim.packages.set")); err != nil {
		return "", err
	}
	for start := 0; start < n; start += esim.MaxPoolUpload {
		batch := make([]esim.ProfileInput, 0, min(esim.MaxPoolUpload, n-start))
		for i := start; i < n && len(batch) < cap(batch); i++ {
			payload := fmt.Sprintf("8999902%011d", i)
			batch = append(batch, esim.ProfileInput{
				ICCID: payload + string(skygate.LuhnCheckDigit(payload)), SMDPAddress: esim.DemoSMDPAddress,
				MatchingID: fmt.Sprintf("BENCH-%d", i),
			})
		}
		if _, err := svc.ImportPool(ctx, accountID, batch, audit("esim.pool.import")); err != nil {
			return "", err
		}
	}
	credit := skygate.Money{Amount: pkg.Price.Amount * int64(n+1), Currency: pkg.Price.Currency}
	if _, err := svc.AddCredit(ctx, accountID, esim.CreditRequest{Amount: credit, Kind: skygate.LedgerCredit, Reference: "bench", Description: "skygate-bench"}, audit("esim.credit")); err != nil {
		return "", err
	}
	return pkg.ID, nil
}
