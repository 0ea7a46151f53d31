package sqlite

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertTopUp = `INSERT INTO esim_topups (id, account_id, client_id, iccid, package_id, data_mb,
			validity_days, price_amount, price_currency, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	selectTopUp = `SELECT id, account_id, client_id, iccid, package_id, data_mb, validity_days,
			price_amount, price_currency, created_at
		FROM esim_topups WHERE account_id = ? AND id = ?`
)

// topUpSQL is the SQL of TopUpESIM (sqlstore.TopUpSQL).
var topUpSQL = sqlstore.TopUpSQL{Key: keySQL, Change: changeSQL, Priced: selectPricedPackage, Insert: insertTopUp}

// TopUpESIM implements skygate.ESIMStore.
func (s *Store) TopUpESIM(ctx context.Context, rec *skygate.IdempotencyRecord, t *skygate.TopUp, apply skygate.ESIMApply) (*skygate.IdempotencyRecord, error) {
	return sqlstore.TopUpESIM(ctx, s.db, topUpSQL, s.charge, rec, t, apply)
}

// TopUp implements skygate.ESIMStore.
func (s *Store) TopUp(ctx context.Context, accountID, topUpID string) (*skygate.TopUp, error) {
	return sqlstore.TopUp(ctx, s.db, selectTopUp, selectESIM, accountID, topUpID)
}
