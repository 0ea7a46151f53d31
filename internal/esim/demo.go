package esim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/skygate/skygate"
)

// Demo data of SeedDemo.
const (
	// DemoPoolSize is how many profiles the demo pool gets.
	DemoPoolSize = 20
	// DemoSMDPAddress is the SM-DP+ of demo profiles; .example never resolves, so no
	// phone installs a demo profile by accident.
	DemoSMDPAddress = "smdp.sandbox.skygate.example"
)

// DemoCredit is the demo account's starting balance: 1000.00 USD.
var DemoCredit = skygate.Money{Amount: 100_000, Currency: "USD"}

// demoPackage describes one demo package; its id is derived from the account.
type demoPackage struct {
	slug      string
	name      skygate.LocalizedText
	countries []string
	dataMB    int // 0: unlimited
	days      int
	cents     int64
	topUp     bool
}

var demoPackages = []demoPackage{
	{"uz-1gb-7d", skygate.LocalizedText{
		EN: "Uzbekistan 1 GB, 7 days", RU: "Узбекистан 1 ГБ, 7 дней",
		UZ: "Oʻzbekiston 1 GB, 7 kun", KK: "Өзбекстан 1 ГБ, 7 күн",
	}, []string{"UZ"}, 1024, 7, 350, true},
	{"central-asia-5gb-15d", skygate.LocalizedText{
		EN: "Central Asia 5 GB, 15 days", RU: "Центральная Азия 5 ГБ, 15 дней",
		UZ: "Markaziy Osiyo 5 GB, 15 kun", KK: "Орталық Азия 5 ГБ, 15 күн",
	}, []string{"UZ", "KZ", "KG", "TJ", "TM"}, 5120, 15, 1200, true},
	{"tr-10gb-30d", skygate.LocalizedText{
		EN: "Türkiye 10 GB, 30 days", RU: "Турция 10 ГБ, 30 дней",
		UZ: "Turkiya 10 GB, 30 kun", KK: "Түркия 10 ГБ, 30 күн",
	}, []string{"TR"}, 10240, 30, 1800, false},
	{"global-unlimited-1d", skygate.LocalizedText{
		EN: "Global unlimited, 1 day", RU: "Весь мир без лимита, 1 день",
		UZ: "Butun dunyo cheksiz, 1 kun", KK: "Бүкіл әлем шексіз, 1 күн",
	}, []string{"AE", "CN", "DE", "ES", "FR", "GB", "IT", "JP", "KG", "KR", "KZ", "TJ", "TR", "US", "UZ"}, 0, 1, 900, true},
}

// SeedDemo gives the account the demo eSIM data so that the sandbox works at once:
// four packages (Uzbekistan, Central Asia, Türkiye, a global unlimited day pass; all
// but Türkiye also sold as top-ups), DemoPoolSize profiles with test ICCIDs, and a
// DemoCredit balance. Each of the three parts is only added when the account has none
// of its kind (no packages, an empty pool, an empty ledger), so calling it on every
// start adds nothing twice and does not undo an admin's later changes; replicas seeding
// at the same moment end with one set too. The ids and ICCIDs are derived from the
// account id, so two demo accounts never collide. Each part is audited as a write by
// by, with the admin API's action names, in its own transaction.
func (s *Service) SeedDemo(ctx context.Context, accountID string, by skygate.Actor) error {
	cat, err := s.store.ESIMCatalog(ctx, accountID)
	if err != nil {
		return err
	}
	if len(cat.Packages) == 0 {
		pkgs := DemoPackages(accountID)
		ids := make([]string, len(pkgs))
		for i, p := range pkgs {
			ids[i] = p.ID
		}
		audit, err := by.Audit(s.now(), "esim.packages.set", "account", accountID, accountID, map[string]any{"package_ids": ids})
		if err != nil {
			return err
		}
		if _, err := s.SetPackages(ctx, accountID, pkgs, audit); err != nil {
			return fmt.Errorf("esim: demo packages: %w", err)
		}
	}
	pool, err := s.store.PoolCounts(ctx, accountID)
	if err != nil {
		return err
	}
	if pool.Total == 0 {
		profiles := DemoProfiles(accountID)
		audit, err := by.Audit(s.now(), "esim.pool.import", "account", accountID, accountID, map[string]int{"imported": len(profiles)})
		if err != nil {
			return err
		}
		_, err = s.ImportPool(ctx, accountID, profiles, audit)
		// A replica starting at the same moment may have imported the same ICCIDs.
		if err != nil && !skygate.IsCode(err, skygate.CodeValidation) {
			return fmt.Errorf("esim: demo pool: %w", err)
		}
	}
	_, entries, err := s.store.ListLedger(ctx, accountID, skygate.Page{Limit: 1})
	if err != nil {
		return err
	}
	if entries == 0 {
		// The entry's id is derived from the account, so a concurrent seed's credit
		// collides with this one and only one of them is booked, with its record.
		credit := CreditRequest{Amount: DemoCredit, Kind: skygate.LedgerCredit, Reference: "demo", Description: "Demo balance"}
		audit, err := by.Audit(s.now(), "esim.credit", "account", accountID, accountID, credit)
		if err != nil {
			return err
		}
		err = s.store.CreditBalance(ctx, &skygate.LedgerEntry{
			ID: derivedID(accountID, "demo-credit"), AccountID: accountID, Kind: credit.Kind,
			Amount: credit.Amount, Reference: credit.Reference, Description: credit.Description, CreatedAt: s.now(),
		}, audit)
		if err != nil && !skygate.IsCode(err, skygate.CodeConflict) {
			return fmt.Errorf("esim: demo credit: %w", err)
		}
	}
	return nil
}

// DemoPackages returns the demo packages of the account, with ids derived from it.
func DemoPackages(accountID string) []*skygate.ESIMPackage {
	out := make([]*skygate.ESIMPackage, len(demoPackages))
	for i, d := range demoPackages {
		p := &skygate.ESIMPackage{
			ID: derivedID(accountID, d.slug), AccountID: accountID, Name: d.name, Countries: d.countries,
			ValidityDays: d.days, Price: skygate.Money{Amount: d.cents, Currency: "USD"}, TopUp: d.topUp, Active: true,
		}
		if d.dataMB > 0 {
			p.DataMB = new(d.dataMB)
		}
		out[i] = p
	}
	return out
}

// DemoProfiles returns the demo pool of the account. ICCIDs are 19 digits: 89 (telecom),
// 999 (a country code ITU-T keeps unassigned, so no real card has it), 01 (issuer),
// nine digits derived from the account, a two-digit sequence and the Luhn digit.
func DemoProfiles(accountID string) []ProfileInput {
	sum := sha256.Sum256([]byte("skygate/esim/demo-pool\x00" + accountID))
	account := binary.BigEndian.Uint64(sum[:8]) % 1_000_000_000
	out := make([]ProfileInput, DemoPoolSize)
	for i := range out {
		payload := fmt.Sprintf("8999901%09d%02d", account, i)
		iccid := payload + string(skygate.LuhnCheckDigit(payload))
		out[i] = ProfileInput{
			ICCID:       iccid,
			SMDPAddress: DemoSMDPAddress,
			MatchingID:  fmt.Sprintf("DEMO-%s-%02d", hex.EncodeToString(sum[8:12]), i),
		}
	}
	return out
}

// derivedID returns a stable UUID (version 5 layout) for name within the account.
func derivedID(accountID, name string) string {
	sum := sha256.Sum256([]byte("skygate/esim/demo-package\x00" + accountID + "\x00" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
