package postgres

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertAccount = `INSERT INTO accounts (id, name, status, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5)`
	selectAccount = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE id = $1`
	selectAccountByName = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE name = $1`
	listAccounts = `SELECT id, name, status, created_at, updated_at FROM accounts
		ORDER BY created_at, id LIMIT $1 OFFSET $2`
	countAccounts    = `SELECT count(*) FROM accounts`
	updateAccountSet = `UPDATE accounts SET status = $1, updated_at = $2 WHERE id = $3
		RETURNING id, name, status, created_at, updated_at`
	selectAccountsUpdatedSince = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE updated_at >= $1 ORDER BY updated_at, id`
)

// CreateAccount implements skygate.AccountStore. It normalises a's times to the stored
// precision.
func (s *Store) CreateAccount(ctx context.Context, a *skygate.Account, audit *skygate.AuditEvent) error {
	return sqlstore.CreateAccount(ctx, s.db, insertAccount, a, audit)
}

// Account implements skygate.AccountStore.
func (s *Store) Account(ctx context.Context, accountID string) (*skygate.Account, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get account", NotFound: sqlstore.AccountNotFound},
		sqlstore.ScanAccount, selectAccount, accountID)
}

// AccountByName implements skygate.AccountStore.
func (s *Store) AccountByName(ctx context.Context, name string) (*skygate.Account, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get account by name", NotFound: sqlstore.AccountNotFound},
		sqlstore.ScanAccount, selectAccountByName, name)
}

// ListAccounts implements skygate.AccountStore. A Limit of zero or less returns every
// account after Offset.
func (s *Store) ListAccounts(ctx context.Context, p skygate.Page) ([]*skygate.Account, int, error) {
	return sqlstore.ListPage(ctx, s.db, "list accounts", sqlstore.ScanAccount, listAccounts, countAccounts, p)
}

// SetAccountStatus implements skygate.AccountStore.
func (s *Store) SetAccountStatus(ctx context.Context, accountID string, st skygate.AccountStatus, now time.Time, audit *skygate.AuditEvent) (*skygate.Account, error) {
	return sqlstore.SetAccountStatus(ctx, s.db, updateAccountSet, accountID, st, now, audit)
}

// AccountsUpdatedSince implements skygate.AccountStore. The result is ordered by
// UpdatedAt, oldest first.
func (s *Store) AccountsUpdatedSince(ctx context.Context, t time.Time) ([]*skygate.Account, error) {
	return sqlstore.All(ctx, s.db, "list updated accounts", sqlstore.ScanAccount, selectAccountsUpdatedSince, s.db.Time(t))
}
