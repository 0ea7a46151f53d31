package postgres

import "database/sql"

// DBOf exposes a store's connection pool to the package's external tests.
func DBOf(s *Store) *sql.DB { return s.db }
