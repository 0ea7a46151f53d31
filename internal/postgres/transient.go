package postgres

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Transient reports whether err means the database cannot be reached right now (a
// restart, a failover, a dropped connection) rather than that the request is wrong:
// the HTTP layer answers such errors 503 with Retry-After instead of 500. SQLSTATE
// classes 08 (connection exception), 57P01–57P03 (shutdown, cannot connect now) and
// 53300 (too many connections) count, and so do dial and I/O errors.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" ||
			pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || pgconn.SafeToRetry(err)
}
