package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/skygate/skygate"
)

// The flows of an eSIM's life after its sale that are not a partner's change of one
// eSIM: the account's eSIM settings and the expiry warnings.

// ESIMSettingsSQL is an engine's statements of the eSIM settings: Select (account_id)
// reads usage_thresholds, the JSON array; Upsert (account_id, usage_thresholds,
// updated_at) writes the account's row, replacing the one it has. One statement
// replaces the settings, so concurrent calls need no lock: the last to commit wins.
type ESIMSettingsSQL struct {
	Select, Upsert string
}

// ESIMSettings is skygate.ESIMSettingsStore's ESIMSettings: an account without a row
// has skygate.DefaultUsageThresholds.
func ESIMSettings(ctx context.Context, db *DB, q ESIMSettingsSQL, accountID string) (*skygate.ESIMSettings, error) {
	s := &skygate.ESIMSettings{UsageThresholds: []int{}}
	err := db.Read.QueryRowContext(ctx, q.Select, accountID).Scan(jsonCol{&s.UsageThresholds})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &skygate.ESIMSettings{UsageThresholds: slices.Clone(skygate.DefaultUsageThresholds)}, nil
	case err != nil:
		return nil, db.Interpret(Outcome{Op: "get eSIM settings"}, err)
	}
	return s, nil
}

// SetESIMSettings is skygate.ESIMSettingsStore's SetESIMSettings: the account's
// foreign key makes an unknown account CodeNotFound.
func SetESIMSettings(ctx context.Context, db *DB, q ESIMSettingsSQL, accountID string, s *skygate.ESIMSettings, now time.Time) (*skygate.ESIMSettings, error) {
	thresholds := append([]int{}, s.UsageThresholds...)
	raw, err := JSONText(thresholds)
	if err != nil {
		return nil, err
	}
	if _, err := db.Write.ExecContext(ctx, q.Upsert, accountID, raw, db.Time(UTC(now))); err != nil {
		return nil, db.Interpret(Outcome{Op: "set eSIM settings", NotFound: AccountNotFound}, err)
	}
	return &skygate.ESIMSettings{UsageThresholds: thresholds}, nil
}

// WarnExpiringESIMs is skygate.ESIMWarningStore's WarnExpiringESIMs: due reads the
// eSIM whose expiry warning is due first, skipping those other claimers hold where
// there can be any, and q writes it. due takes now, now plus the first warning's days
// (3: due while no warning was sent), now plus the second's (1: due after the first
// was sent) and the ICCIDs to skip as Strings; it is ESIM.DueExpiryWarning in SQL,
// each of its two windows a range of the partial index esims_expiring. Each eSIM is
// its own transaction (see sweepESIMs).
func WarnExpiringESIMs(ctx context.Context, db *DB, due string, q ChangeSQL, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	if !slices.Equal(skygate.ESIMExpiryWarnings, []int{3, 1}) {
		// The due query names the windows, and expiry_warned = 3 the first; other
		// warnings need another query.
		return 0, fmt.Errorf("sqlstore: the expiry warning query knows the warnings 3 and 1, not %v", skygate.ESIMExpiryWarnings)
	}
	now = UTC(now)
	first := now.Add(time.Duration(skygate.ESIMExpiryWarnings[0]) * 24 * time.Hour)
	last := now.Add(time.Duration(skygate.ESIMExpiryWarnings[1]) * 24 * time.Hour)
	claim := func(tx *Tx, skip any) (*skygate.ESIM, error) {
		return ScanESIM(tx.QueryRowContext(ctx, due, db.Time(now), db.Time(first), db.Time(last), skip))
	}
	return sweepESIMs(ctx, db, "warn expiring eSIMs", q, now, limit, claim, apply, func(after *skygate.ESIM) error {
		if _, ok := after.DueExpiryWarning(now); ok {
			// Left due, the eSIM would be claimed again forever.
			return errors.New("its expiry warning was not recorded")
		}
		return nil
	})
}
