package sqlite

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

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
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get catalog", NotFound: sqlstore.CatalogNotFound},
		sqlstore.ScanCatalog, selectCatalog)
}

// CatalogVersion implements skygate.CatalogStore.
func (s *Store) CatalogVersion(ctx context.Context) (int64, error) {
	return sqlstore.Get(ctx, s.db, sqlstore.Outcome{Op: "get catalog version", NotFound: sqlstore.CatalogNotFound},
		sqlstore.ScanInt, selectCatalogVersion)
}

// ReplaceCatalog implements skygate.CatalogStore. Concurrent calls get distinct,
// increasing versions and none fails with a duplicate version: the single writer runs
// one replacement at a time, and the next version is read and inserted in one
// statement.
func (s *Store) ReplaceCatalog(ctx context.Context, data []byte, now time.Time) (*skygate.CatalogDocument, error) {
	doc := &skygate.CatalogDocument{Data: sqlstore.NonNil(data), UpdatedAt: sqlstore.UTC(now)}
	err := s.inTx(ctx, func(tx *sqlstore.Tx) error {
		return tx.QueryRowContext(ctx, insertCatalog, doc.Data, s.db.Time(doc.UpdatedAt)).Scan(&doc.Version)
	})
	if err != nil {
		return nil, s.db.Interpret(sqlstore.Outcome{Op: "replace catalog"}, err)
	}
	return doc, nil
}
