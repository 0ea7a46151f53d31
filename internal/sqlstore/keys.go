package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/skygate/skygate"
)

const keyColumns = `kid, private_key_enc, public_key_der, created_at, active_at`

var (
	qInsertKey  = newStmt(`INSERT INTO signing_keys (` + keyColumns + `) VALUES (?, ?, ?, ?, ?)`)
	qSigningKey = newStmt(`SELECT ` + keyColumns + ` FROM signing_keys ORDER BY active_at, kid`)
	qDeleteKey  = newStmt(`DELETE FROM signing_keys WHERE kid = ?`)
)

// CreateSigningKey implements skygate.KeyStore. It normalises k's times to the stored
// precision.
func (s *Store) CreateSigningKey(ctx context.Context, k *skygate.SigningKey) error {
	k.CreatedAt, k.ActiveAt = utc(k.CreatedAt), utc(k.ActiveAt)
	_, err := s.write.ExecContext(ctx, s.q(qInsertKey),
		k.ID, nonNil(k.PrivateKeyEnc), nonNil(k.PublicKeyDER), s.time(k.CreatedAt), s.time(k.ActiveAt))
	return s.interpret(outcome{
		op:       "create signing key",
		conflict: fmt.Sprintf("a signing key with kid %q already exists", k.ID),
	}, err)
}

// SigningKeys implements skygate.KeyStore. Keys with the same ActiveAt are ordered by
// kid so that every replica sees one order.
func (s *Store) SigningKeys(ctx context.Context) ([]*skygate.SigningKey, error) {
	rows, err := s.read.QueryContext(ctx, s.q(qSigningKey))
	if err != nil {
		return nil, s.interpret(outcome{op: "list signing keys"}, err)
	}
	defer rows.Close()
	keys := []*skygate.SigningKey{}
	for rows.Next() {
		var k skygate.SigningKey
		if err := rows.Scan(&k.ID, &k.PrivateKeyEnc, &k.PublicKeyDER,
			timeCol{&k.CreatedAt}, timeCol{&k.ActiveAt}); err != nil {
			return nil, s.interpret(outcome{op: "scan signing key"}, err)
		}
		keys = append(keys, &k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.interpret(outcome{op: "list signing keys"}, err)
	}
	return keys, nil
}

// DeleteSigningKeys implements skygate.KeyStore. The keys go in one transaction, so a
// failure deletes none of them.
func (s *Store) DeleteSigningKeys(ctx context.Context, kids []string) error {
	if len(kids) == 0 {
		return nil
	}
	// One statement per kid keeps the query text fixed; a node holds a handful of keys.
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, kid := range kids {
			if _, err := tx.ExecContext(ctx, s.q(qDeleteKey), kid); err != nil {
				return err
			}
		}
		return nil
	})
	return s.interpret(outcome{op: "delete signing keys"}, err)
}
