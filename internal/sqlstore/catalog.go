package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// Every replacement is a new row; the current document is the one with the highest
// version. Older rows are kept as a history of what was served.
var (
	qCatalog        = newStmt(`SELECT version, data, updated_at FROM catalog_documents ORDER BY version DESC LIMIT 1`)
	qCatalogVersion = newStmt(`SELECT version FROM catalog_documents ORDER BY version DESC LIMIT 1`)
	qNextCatalog    = newStmt(`SELECT COALESCE(MAX(version), 0) + 1 FROM catalog_documents`)
	qInsertCatalog  = newStmt(`INSERT INTO catalog_documents (version, data, updated_at) VALUES (?, ?, ?)`)
)

const catalogNotFound = "no catalog has been stored yet"

// Catalog implements skygate.CatalogStore.
func (s *Store) Catalog(ctx context.Context) (*skygate.CatalogDocument, error) {
	var doc skygate.CatalogDocument
	err := s.read.QueryRowContext(ctx, s.q(qCatalog)).Scan(&doc.Version, &doc.Data, timeCol{&doc.UpdatedAt})
	if err != nil {
		return nil, s.interpret(outcome{op: "get catalog", notFound: catalogNotFound}, err)
	}
	return &doc, nil
}

// CatalogVersion implements skygate.CatalogStore.
func (s *Store) CatalogVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.read.QueryRowContext(ctx, s.q(qCatalogVersion)).Scan(&v); err != nil {
		return 0, s.interpret(outcome{op: "get catalog version", notFound: catalogNotFound}, err)
	}
	return v, nil
}

// ReplaceCatalog implements skygate.CatalogStore. Concurrent calls get distinct,
// increasing versions and none fails with a duplicate version: the next version is
// read and inserted under a table lock on PostgreSQL, and inside a BEGIN IMMEDIATE
// transaction, which holds the database's write lock, on SQLite.
func (s *Store) ReplaceCatalog(ctx context.Context, data []byte, now time.Time) (*skygate.CatalogDocument, error) {
	doc := &skygate.CatalogDocument{Data: nonNil(data), UpdatedAt: utc(now)}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.lockTable(ctx, tx, "catalog_documents"); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, s.q(qNextCatalog)).Scan(&doc.Version); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(qInsertCatalog), doc.Version, doc.Data, s.time(doc.UpdatedAt))
		return err
	})
	if err != nil {
		return nil, s.interpret(outcome{op: "replace catalog"}, err)
	}
	return doc, nil
}
