package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertSigningKey = `INSERT INTO signing_keys (kid, private_key_enc, public_key_der, created_at, active_at)
		VALUES (?, ?, ?, ?, ?)`
	selectSigningKeys = `SELECT kid, private_key_enc, public_key_der, created_at, active_at
		FROM signing_keys ORDER BY active_at, kid`
	deleteSigningKey = `DELETE FROM signing_keys WHERE kid = ?`
)

// CreateSigningKey implements skygate.KeyStore. It normalises k's times to the stored
// precision.
func (s *Store) CreateSigningKey(ctx context.Context, k *skygate.SigningKey) error {
	k.CreatedAt, k.ActiveAt = sqlstore.UTC(k.CreatedAt), sqlstore.UTC(k.ActiveAt)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, insertSigningKey,
			k.ID, sqlstore.NonNil(k.PrivateKeyEnc), sqlstore.NonNil(k.PublicKeyDER), micros(k.CreatedAt), micros(k.ActiveAt))
		return err
	})
	return interpret(sqlstore.Outcome{
		Op:       "create signing key",
		Conflict: fmt.Sprintf("a signing key with kid %q already exists", k.ID),
	}, err)
}

// SigningKeys implements skygate.KeyStore. Keys with the same ActiveAt are ordered by
// kid so that every replica sees one order.
func (s *Store) SigningKeys(ctx context.Context) ([]*skygate.SigningKey, error) {
	keys, err := sqlstore.QueryAll(ctx, s.read, scanSigningKey, selectSigningKeys)
	if err != nil {
		return nil, interpret(sqlstore.Outcome{Op: "list signing keys"}, err)
	}
	return keys, nil
}

func scanSigningKey(row sqlstore.Scanner) (*skygate.SigningKey, error) {
	var k skygate.SigningKey
	if err := row.Scan(&k.ID, &k.PrivateKeyEnc, &k.PublicKeyDER,
		sqlstore.TimeCol(&k.CreatedAt), sqlstore.TimeCol(&k.ActiveAt)); err != nil {
		return nil, err
	}
	return &k, nil
}

// DeleteSigningKeys implements skygate.KeyStore. The keys go in one transaction, so a
// failure deletes none of them; a node holds a handful of keys.
func (s *Store) DeleteSigningKeys(ctx context.Context, kids []string) error {
	if len(kids) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, kid := range kids {
			if _, err := tx.ExecContext(ctx, deleteSigningKey, kid); err != nil {
				return err
			}
		}
		return nil
	})
	return interpret(sqlstore.Outcome{Op: "delete signing keys"}, err)
}
