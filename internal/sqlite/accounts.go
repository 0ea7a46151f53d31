package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

// accountNotFound is the public message of a missing account.
const accountNotFound = "account not found"

const (
	insertAccount = `INSERT INTO accounts (id, name, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?)`
	selectAccount = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE id = ?`
	selectAccountByName = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE name = ?`
	listAccounts = `SELECT id, name, status, created_at, updated_at FROM accounts
		ORDER BY created_at, id LIMIT ? OFFSET ?`
	countAccounts    = `SELECT count(*) FROM accounts`
	updateAccountSet = `UPDATE accounts SET status = ?, updated_at = ? WHERE id = ?
		RETURNING id, name, status, created_at, updated_at`
	selectAccountsUpdatedSince = `SELECT id, name, status, created_at, updated_at FROM accounts
		WHERE updated_at >= ? ORDER BY updated_at, id`
)

// CreateAccount implements skygate.AccountStore. It normalises a's times to the stored
// precision.
func (s *Store) CreateAccount(ctx context.Context, a *skygate.Account, audit *skygate.AuditEvent) error {
	a.CreatedAt, a.UpdatedAt = sqlstore.UTC(a.CreatedAt), sqlstore.UTC(a.UpdatedAt)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, insertAccount, a.ID, a.Name, string(a.Status), micros(a.CreatedAt), micros(a.UpdatedAt)); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	return interpret(sqlstore.Outcome{
		Op:       "create account",
		Conflict: fmt.Sprintf("an account named %q already exists", a.Name),
	}, err)
}

// Account implements skygate.AccountStore.
func (s *Store) Account(ctx context.Context, accountID string) (*skygate.Account, error) {
	a, err := sqlstore.ScanAccount(s.read.QueryRowContext(ctx, selectAccount, accountID))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get account", NotFound: accountNotFound}, err)
	}
	return a, nil
}

// AccountByName implements skygate.AccountStore.
func (s *Store) AccountByName(ctx context.Context, name string) (*skygate.Account, error) {
	a, err := sqlstore.ScanAccount(s.read.QueryRowContext(ctx, selectAccountByName, name))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get account by name", NotFound: accountNotFound}, err)
	}
	return a, nil
}

// ListAccounts implements skygate.AccountStore. A Limit of zero or less returns every
// account after Offset.
func (s *Store) ListAccounts(ctx context.Context, p skygate.Page) ([]*skygate.Account, int, error) {
	return listPage(ctx, s, "list accounts", sqlstore.ScanAccount, listAccounts, countAccounts, p)
}

// SetAccountStatus implements skygate.AccountStore.
func (s *Store) SetAccountStatus(ctx context.Context, accountID string, st skygate.AccountStatus, now time.Time, audit *skygate.AuditEvent) (*skygate.Account, error) {
	var a *skygate.Account
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		if a, err = sqlstore.ScanAccount(tx.QueryRowContext(ctx, updateAccountSet, string(st), micros(sqlstore.UTC(now)), accountID)); err != nil {
			return err
		}
		return appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "set account status", NotFound: accountNotFound}, err)
	}
	return a, nil
}

// AccountsUpdatedSince implements skygate.AccountStore. The result is ordered by
// UpdatedAt, oldest first.
func (s *Store) AccountsUpdatedSince(ctx context.Context, t time.Time) ([]*skygate.Account, error) {
	accounts, err := sqlstore.QueryAll(ctx, s.read, sqlstore.ScanAccount, selectAccountsUpdatedSince, micros(t))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "list updated accounts"}, err)
	}
	return accounts, nil
}
