package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

const accountColumns = `id, name, status, created_at, updated_at`

var (
	qInsertAccount = newStmt(`INSERT INTO accounts (` + accountColumns + `) VALUES (?, ?, ?, ?, ?)`)
	qAccount       = newStmt(`SELECT ` + accountColumns + ` FROM accounts WHERE id = ?`)
	qAccountByName = newStmt(`SELECT ` + accountColumns + ` FROM accounts WHERE name = ?`)
	qListAccounts  = newStmt(`SELECT ` + accountColumns + ` FROM accounts
		ORDER BY created_at, id ` + limitArg + ` OFFSET ?`)
	qCountAccounts   = newStmt(`SELECT COUNT(*) FROM accounts`)
	qSetAccountState = newStmt(`UPDATE accounts SET status = ?, updated_at = ? WHERE id = ?
		RETURNING ` + accountColumns)
	qAccountsUpdatedSince = newStmt(`SELECT ` + accountColumns + ` FROM accounts
		WHERE updated_at >= ? ORDER BY updated_at, id`)
)

// accountNotFound is the public message of a missing account.
const accountNotFound = "account not found"

// scanAccount reads one row of accountColumns.
func scanAccount(row scanner) (*skygate.Account, error) {
	var a skygate.Account
	var status string
	if err := row.Scan(&a.ID, &a.Name, &status, timeCol{&a.CreatedAt}, timeCol{&a.UpdatedAt}); err != nil {
		return nil, err
	}
	a.Status = skygate.AccountStatus(status)
	return &a, nil
}

// CreateAccount implements skygate.AccountStore. It normalises a's times to the stored
// precision.
func (s *Store) CreateAccount(ctx context.Context, a *skygate.Account, audit *skygate.AuditEvent) error {
	a.CreatedAt, a.UpdatedAt = utc(a.CreatedAt), utc(a.UpdatedAt)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(qInsertAccount),
			a.ID, a.Name, string(a.Status), s.time(a.CreatedAt), s.time(a.UpdatedAt))
		if err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	return s.interpret(outcome{
		op:       "create account",
		conflict: fmt.Sprintf("an account named %q already exists", a.Name),
	}, err)
}

// Account implements skygate.AccountStore.
func (s *Store) Account(ctx context.Context, accountID string) (*skygate.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, s.q(qAccount), accountID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get account", notFound: accountNotFound}, err)
	}
	return a, nil
}

// AccountByName implements skygate.AccountStore.
func (s *Store) AccountByName(ctx context.Context, name string) (*skygate.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, s.q(qAccountByName), name))
	if err != nil {
		return nil, s.interpret(outcome{op: "get account by name", notFound: accountNotFound}, err)
	}
	return a, nil
}

// ListAccounts implements skygate.AccountStore. A Limit of zero or less returns every
// account after Offset.
func (s *Store) ListAccounts(ctx context.Context, p skygate.Page) ([]*skygate.Account, int, error) {
	return listPage(ctx, s, "list accounts", scanAccount, s.q(qListAccounts), s.q(qCountAccounts), p)
}

// SetAccountStatus implements skygate.AccountStore.
func (s *Store) SetAccountStatus(ctx context.Context, accountID string, st skygate.AccountStatus, now time.Time, audit *skygate.AuditEvent) (*skygate.Account, error) {
	var a *skygate.Account
	err := s.inTx(ctx, func(tx *sql.Tx) (err error) {
		if a, err = scanAccount(tx.QueryRowContext(ctx, s.q(qSetAccountState), string(st), s.time(now), accountID)); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, audit)
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "set account status", notFound: accountNotFound}, err)
	}
	return a, nil
}

// AccountsUpdatedSince implements skygate.AccountStore. The result is ordered by
// UpdatedAt, oldest first.
func (s *Store) AccountsUpdatedSince(ctx context.Context, t time.Time) ([]*skygate.Account, error) {
	accounts, err := s.queryAccounts(ctx, s.read, s.q(qAccountsUpdatedSince), s.time(t))
	if err != nil {
		return nil, s.interpret(outcome{op: "list updated accounts"}, err)
	}
	return accounts, nil
}

// queryAccounts runs a query returning accountColumns rows.
func (s *Store) queryAccounts(ctx context.Context, db queryer, query string, args ...any) ([]*skygate.Account, error) {
	return queryAll(ctx, db, scanAccount, query, args...)
}
