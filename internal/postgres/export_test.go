package postgres

import (
	"context"
	"database/sql"
	"fmt"
)

// MigrateTo applies the migrations up to and including version, for tests of what a
// later migration does to rows written before it.
func (s *Store) MigrateTo(ctx context.Context, version int64) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("postgres: migrate to %d: %w", version, err)
	}
	return nil
}

// DB returns the pool, for tests that read and write rows as they are stored.
func (s *Store) DB() *sql.DB { return s.db }
