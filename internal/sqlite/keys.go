package sqlite

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertSigningKey = `INSERT INTO signing_keys (kid, private_key_enc, public_key_der, created_at, active_at)
		VALUES (?, ?, ?, ?, ?)`
	selectSigningKeys = `SELECT kid, private_key_enc, public_key_der, created_at, active_at
		FROM signing_keys ORDER BY active_at, kid`
	// deleteSigningKeys takes the kids as a JSON array.
	deleteSigningKeys = `DELETE FROM signing_keys WHERE kid IN (SELECT value FROM json_each(?))`
)

// CreateSigningKey implements skygate.KeyStore. It normalises k's times to the stored
// precision.
func (s *Store) CreateSigningKey(ctx context.Context, k *skygate.SigningKey) error {
	return sqlstore.CreateSigningKey(ctx, s.db, insertSigningKey, k)
}

// SigningKeys implements skygate.KeyStore. Keys with the same ActiveAt are ordered by
// kid so that every replica sees one order.
func (s *Store) SigningKeys(ctx context.Context) ([]*skygate.SigningKey, error) {
	return sqlstore.All(ctx, s.db, "list signing keys", sqlstore.ScanSigningKey, selectSigningKeys)
}

// DeleteSigningKeys implements skygate.KeyStore. The keys go in one statement, so a
// failure deletes none of them.
func (s *Store) DeleteSigningKeys(ctx context.Context, kids []string) error {
	return sqlstore.DeleteSigningKeys(ctx, s.db, deleteSigningKeys, kids)
}
