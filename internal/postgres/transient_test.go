package postgres_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal/sealtest"
)

func TestTransient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("boom"), false},
		{&pgconn.PgError{Code: "23505"}, false},
		{fmt.Errorf("x: %w", &pgconn.PgError{Code: "57P01"}), true},
		{&pgconn.PgError{Code: "08006"}, true},
		{driver.ErrBadConn, true},
	} {
		if got := postgres.Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v", tc.err, got)
		}
	}
	// A server that is not there.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", 0, sealtest.New(t), nil)
	if err == nil {
		s.Close()
		t.Fatal("opened a database on port 1")
	}
	if !postgres.Transient(err) {
		t.Errorf("a refused connection is not transient: %v", err)
	}
}
