package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const catalogNotFound = "no catalog has been stored yet"

// Every replacement is a new row; the current document is the one with the highest
// version. Older rows are kept as a history of what was served.
const (
	selectCatalog        = `SELECT version, data, updated_at FROM catalog_documents ORDER BY version DESC LIMIT 1`
	selectCatalogVersion = `SELECT version FROM catalog_documents ORDER BY version DESC LIMIT 1`
	insertCatalog        = `INSERT INTO catalog_documents (version, data, updated_at)
		SELECT coalesce(max(version), 0) + 1, ?, ? FROM catalog_documents
		RETURNING version`
)

// Catalog implements skygate.CatalogStore.
func (s *Store) Catalog(ctx context.Context) (*skygate.CatalogDocument, error) {
	var doc skygate.CatalogDocument
	err := s.read.QueryRowContext(ctx, selectCatalog).Scan(&doc.Version, &doc.Data, sqlstore.TimeCol(&doc.UpdatedAt))
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "get catalog", NotFound: catalogNotFound}, err)
	}
	return &doc, nil
}

// CatalogVersion implements skygate.CatalogStore.
func (s *Store) CatalogVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.read.QueryRowContext(ctx, selectCatalogVersion).Scan(&v); err != nil {
		return 0, interpret(sqlstore.Outcome{Op: "get catalog version", NotFound: catalogNotFound}, err)
	}
	return v, nil
}

// ReplaceCatalog implements skygate.CatalogStore. Concurrent calls get distinct,
// increasing versions and none fails with a duplicate version: the single writer runs
// one replacement at a time, and the next version is read and inserted in one
// statement.
func (s *Store) ReplaceCatalog(ctx context.Context, data []byte, now time.Time) (*skygate.CatalogDocument, error) {
	doc := &skygate.CatalogDocument{Data: sqlstore.NonNil(data), UpdatedAt: sqlstore.UTC(now)}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, insertCatalog, doc.Data, micros(doc.UpdatedAt)).Scan(&doc.Version)
	})
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "replace catalog"}, err)
	}
	return doc, nil
}
