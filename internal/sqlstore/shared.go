package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/skygate/skygate"
)

// The interfaces of reading, the column scanners of the engines' own rows, and the
// mapping of driver errors to domain codes.

// Scanner is the part of *sql.Row and *sql.Rows that reads one row.
type Scanner interface {
	Scan(dest ...any) error
}

// Queryer is what *sql.DB, *sql.Tx and *Tx share for reading rows.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Outcome says what an operation's failures mean to the caller: the public message of
// a unique violation (Conflict) and of a missing row or broken reference (NotFound).
// An empty message leaves that failure internal.
type Outcome struct {
	Op       string
	Conflict string
	NotFound string
}

// Interpret turns a driver error of engine into a domain error, classify telling which
// constraint it violated; an error that already carries a domain error (from
// Transition, apply, or the store's own rules) is returned as it is, wrapped or not.
// sql.ErrNoRows is CodeNotFound, a unique violation CodeConflict and a foreign key
// violation CodeNotFound, each only where o gives it a message; text the engine cannot
// store (a NUL byte in PostgreSQL) is CodeNotFound where o has that message, since no
// row can hold it, else CodeBadRequest; anything else stays internal, wrapped with the
// operation.
func Interpret(engine string, classify func(error) Violation, o Outcome, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*skygate.Error](err); ok {
		// Already a domain error (a NotFound of no affected row, a refusal of the
		// transaction's own logic): it says more than the driver's error would.
		return err
	}
	if errors.Is(err, sql.ErrNoRows) && o.NotFound != "" {
		return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound}
	}
	if sqlState(err) == stateUnstorableText {
		if o.NotFound != "" {
			return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound, Err: err}
		}
		return &skygate.Error{Code: skygate.CodeBadRequest, Message: "the request holds text that cannot be stored, such as a NUL byte", Err: err}
	}
	switch classify(err) {
	case UniqueViolation:
		if o.Conflict != "" {
			return &skygate.Error{Code: skygate.CodeConflict, Message: o.Conflict, Err: err}
		}
	case ForeignKeyViolation:
		if o.NotFound != "" {
			return &skygate.Error{Code: skygate.CodeNotFound, Message: o.NotFound, Err: err}
		}
	}
	return fmt.Errorf("%s: %s: %w", engine, o.Op, err)
}

// CatalogNotFound is the public message of a store without a catalog.
const CatalogNotFound = "no catalog has been stored yet"

// ScanCatalog reads version, data, updated_at.
func ScanCatalog(row Scanner) (*skygate.CatalogDocument, error) {
	var doc skygate.CatalogDocument
	if err := row.Scan(&doc.Version, &doc.Data, timeCol{&doc.UpdatedAt}); err != nil {
		return nil, err
	}
	return &doc, nil
}

// ScanInt reads one integer.
func ScanInt(row Scanner) (n int64, err error) { return n, row.Scan(&n) }
