package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

var (
	_ skygate.ESIMSettingsStore = (*Store)(nil)
	_ skygate.ESIMWarningStore  = (*Store)(nil)
)

// esimSettingsSQL are the statements of the eSIM settings (sqlstore.ESIMSettingsSQL).
var esimSettingsSQL = sqlstore.ESIMSettingsSQL{
	Select: `SELECT usage_thresholds FROM esim_settings WHERE account_id = ?`,
	Upsert: `INSERT INTO esim_settings (account_id, usage_thresholds, updated_at) VALUES (?1, ?2, ?3)
		ON CONFLICT (account_id) DO UPDATE SET usage_thresholds = ?2, updated_at = ?3`,
}

// claimExpiringESIM reads the eSIM whose expiry warning is due first (see
// sqlstore.WarnExpiringESIMs): ?1 now, ?2 now plus 3 days, ?3 now plus 1 day, ?4 the
// ICCIDs to skip. Each window is one range of the partial index esims_expiring, read
// in its order and merged: no 3-day warning sent (expiry_warned = 0) and expiring
// within 3 days, or the 3-day one sent (expiry_warned = 3) and expiring within a day;
// the literal conditions imply the index's. The single writer runs claimers one after
// the other, so none needs a lock.
const claimExpiringESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
	WHERE e.iccid = (SELECT iccid FROM (
		SELECT iccid, expires_at FROM esims
		WHERE status IN ('Active', 'Depleted') AND expiry_warned <> 1
			AND expiry_warned = 0 AND expires_at > ?1 AND expires_at <= ?2
			AND iccid NOT IN (SELECT value FROM json_each(?4))
		UNION ALL
		SELECT iccid, expires_at FROM esims
		WHERE status IN ('Active', 'Depleted') AND expiry_warned <> 1
			AND expiry_warned = 3 AND expires_at > ?1 AND expires_at <= ?3
			AND iccid NOT IN (SELECT value FROM json_each(?4))
		ORDER BY expires_at LIMIT 1))`

// ESIMSettings implements skygate.ESIMSettingsStore.
func (s *Store) ESIMSettings(ctx context.Context, accountID string) (*skygate.ESIMSettings, error) {
	return sqlstore.ESIMSettings(ctx, s.db, esimSettingsSQL, accountID)
}

// SetESIMSettings implements skygate.ESIMSettingsStore.
func (s *Store) SetESIMSettings(ctx context.Context, accountID string, set *skygate.ESIMSettings, now time.Time) (*skygate.ESIMSettings, error) {
	return sqlstore.SetESIMSettings(ctx, s.db, esimSettingsSQL, accountID, set, now)
}

// WarnExpiringESIMs implements skygate.ESIMWarningStore. Each eSIM is its own
// transaction.
func (s *Store) WarnExpiringESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	return sqlstore.WarnExpiringESIMs(ctx, s.db, claimExpiringESIM, changeSQL, now, limit, apply)
}
