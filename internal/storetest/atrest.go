package storetest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// BookingTables are the tables a booking's creation and life write to: the booking,
// the stored answer of its Idempotency-Key, its events and their webhook deliveries.
var BookingTables = []string{"bookings", "idempotency_records", "events", "webhook_deliveries"}

// MustWriteBookingLife does what the service does for a booking with every personal
// field, on an account with a webhook subscription: the creation with its key (whose
// stored answer is the booking) and event, then issue, confirm and cancel with their
// events. It returns the booking as created.
func MustWriteBookingLife(tb testing.TB, s skygate.Store) *skygate.Booking {
	tb.Helper()
	acc := MustCreateAccount(tb, s)
	MustCreateWebhook(tb, s, acc.ID)
	b := NewBooking(acc.ID, WithAllPersonalData, WithServiceDate("2025-03-21"))
	body, err := json.Marshal(b)
	MustNoError(tb, err, "Marshal")
	rec := NewRecord(b, "key-"+NewID(), "fp")
	rec.Body = body
	events, err := skygate.BookingEvents(nil, b, b.CreatedAt)
	MustNoError(tb, err, "BookingEvents")
	replay, err := s.CreateBooking(tb.Context(), rec, b, events)
	MustNoError(tb, err, "CreateBooking")
	if replay != nil {
		tb.Fatalf("CreateBooking with a new key replayed %+v", replay)
	}
	MustTransition(tb, s, b, At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm, skygate.TriggerCancel)
	stored, err := s.IdempotencyRecord(tb.Context(), acc.ID, rec.Operation, rec.Key, At(time.Hour))
	MustNoError(tb, err, "IdempotencyRecord")
	if !bytes.Equal(stored.Body, body) || !bytes.Equal(stored.Fingerprint, rec.Fingerprint) {
		tb.Fatalf("stored answer %s (fingerprint %q), want %s", stored.Body, stored.Fingerprint, body)
	}
	return b
}

// MustHoldNoneInClear fails unless no column of any row of the tables holds one of
// values, as the database stores it (what a dump shows).
func MustHoldNoneInClear(tb testing.TB, db *sql.DB, tables []string, values []string) {
	tb.Helper()
	for _, table := range tables {
		for i, row := range mustRawRows(tb, db, table) {
			for _, v := range values {
				if bytes.Contains(row, []byte(v)) {
					tb.Errorf("%s row %d holds %q in clear: %.400q", table, i, v, row)
				}
			}
		}
	}
}

// MustHoldInClear fails unless some row of the table holds value as it is: the
// counterpart of MustHoldNoneInClear, showing that it reads what is there.
func MustHoldInClear(tb testing.TB, db *sql.DB, table, value string) {
	tb.Helper()
	for _, row := range mustRawRows(tb, db, table) {
		if bytes.Contains(row, []byte(value)) {
			return
		}
	}
	tb.Errorf("no row of %s holds %q", table, value)
}

// mustRawRows returns every row of table, its columns' stored values joined.
func mustRawRows(tb testing.TB, db *sql.DB, table string) [][]byte {
	tb.Helper()
	rows, err := db.QueryContext(tb.Context(), "SELECT * FROM "+table)
	MustNoError(tb, err, "read "+table)
	defer func() { _ = rows.Close() }() // rows.Err below reports a failed read
	cols, err := rows.Columns()
	MustNoError(tb, err, "columns of "+table)
	var out [][]byte
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		MustNoError(tb, rows.Scan(ptrs...), "scan "+table)
		var row []byte
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				row = append(row, v...)
			case string:
				row = append(row, v...)
			default:
				row = fmt.Append(row, v)
			}
			row = append(row, '|')
		}
		out = append(out, row)
	}
	MustNoError(tb, rows.Err(), "rows of "+table)
	return out
}

// PersonalValues lists the personal data of the booking's passengers, for tests that
// look for it where it must not be.
func PersonalValues(b *skygate.Booking) []string {
	var out []string
	for _, p := range b.Passengers {
		for _, v := range []string{p.DateOfBirth, p.PassportNumber, p.Email, p.Phone} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
