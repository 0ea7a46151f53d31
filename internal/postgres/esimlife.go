package postgres

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
	Select: `SELECT usage_thresholds FROM esim_settings WHERE account_id = $1`,
	Upsert: `INSERT INTO esim_settings (account_id, usage_thresholds, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET usage_thresholds = EXCLUDED.usage_thresholds,
			updated_at = EXCLUDED.updated_at`,
}

// claimExpiringESIM claims the eSIM whose expiry warning is due first (see
// sqlstore.WarnExpiringESIMs): $1 now, $2 now plus 3 days, $3 now plus 1 day.
// Claimers on every replica skip the rows others hold, and a row another claimer
// warned meanwhile is checked again under its lock and no longer matches.
const claimExpiringESIM = `SELECT ` + esimColumns + ` FROM ` + esimFrom + `
	WHERE e.status IN ('Active', 'Depleted') AND e.expires_at > $1
		AND ((e.expiry_warned = 0 AND e.expires_at <= $2) OR (e.expiry_warned <> 1 AND e.expires_at <= $3))
	ORDER BY e.expires_at, e.iccid LIMIT 1
	FOR UPDATE OF e SKIP LOCKED`

// ESIMSettings implements skygate.ESIMSettingsStore.
func (s *Store) ESIMSettings(ctx context.Context, accountID string) (*skygate.ESIMSettings, error) {
	return sqlstore.ESIMSettings(ctx, s.db, esimSettingsSQL, accountID)
}

// SetESIMSettings implements skygate.ESIMSettingsStore.
func (s *Store) SetESIMSettings(ctx context.Context, accountID string, set *skygate.ESIMSettings, now time.Time) (*skygate.ESIMSettings, error) {
	return sqlstore.SetESIMSettings(ctx, s.db, esimSettingsSQL, accountID, set, now)
}

// WarnExpiringESIMs implements skygate.ESIMWarningStore. Each eSIM is its own
// transaction; claimers skip the eSIMs others hold.
func (s *Store) WarnExpiringESIMs(ctx context.Context, now time.Time, limit int, apply skygate.ESIMApply) (int, error) {
	return sqlstore.WarnExpiringESIMs(ctx, s.db, claimExpiringESIM, changeSQL, now, limit, apply)
}
