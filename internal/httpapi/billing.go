package httpapi

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// Billing routes: the account's one prepaid ledger, which fast-track bookings and eSIMs
// share (readable with either side's read scope), its low-balance settings and its
// monthly statement as CSV.

// billing answers the balances and a page of the ledger; the same body as
// GET /v2/b2b/esim/billing.
func (s *Server) billing(w http.ResponseWriter, r *http.Request) error {
	return s.esimBilling(w, r)
}

// billingSettings answers the account's low-balance thresholds.
func (s *Server) billingSettings(w http.ResponseWriter, r *http.Request) error {
	set, err := s.deps.ESIM.BillingSettings(r.Context(), accountIDOf(r.Context()))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, set)
}

// patchBillingSettings replaces the settings the body names: low_balance_thresholds
// (the whole list).
func (s *Server) patchBillingSettings(w http.ResponseWriter, r *http.Request) error {
	var req skygate.BillingSettings
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	set, err := s.deps.ESIM.SetBillingSettings(r.Context(), accountIDOf(r.Context()), &req)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, set)
}

// statementColumns is the header row of a statement. A line has no reserved column:
// a reservation's amount is what left the available amount for the reserve. iccid
// (the eSIM of the refund line of a cancel) came later, so it is last: readers that
// index the columns keep working.
var statementColumns = []string{"id", "created_at", "kind", "amount", "currency", "balance_after",
	"booking_id", "reference", "description", "iccid"}

// billingStatement answers the month's ledger lines as text/csv (RFC 4180), oldest
// first, as an attachment; 406 when Accept excludes text/csv. The lines are read and
// written a chunk at a time (esim.Service.Statement), so a month of any size takes
// bounded memory. An error before the first byte is a problem as usual; after it the
// status is sent, so the error is logged and the response aborted (the client sees
// a truncated body, never a statement that looks complete).
func (s *Server) billingStatement(w http.ResponseWriter, r *http.Request) error {
	if !acceptsCSV(r.Header.Get("Accept")) {
		return skygate.Errorf(skygate.CodeNotAcceptable, "the statement is available as text/csv only")
	}
	month := r.PathValue("month")
	sw := &statementWriter{w: w, month: month}
	err := s.deps.ESIM.Statement(r.Context(), accountIDOf(r.Context()), month, sw.lines)
	switch {
	case err == nil:
		return sw.finish()
	case sw.cw != nil:
		s.log.ErrorContext(r.Context(), "statement aborted after its first byte", "err", err,
			"request_id", requestIDOf(r.Context()))
		panic(http.ErrAbortHandler)
	default:
		return err
	}
}

// statementWriter writes a statement's CSV to the response as its lines come: the
// headers and the header row before the first line (or at the end, for a month
// without lines).
type statementWriter struct {
	w     http.ResponseWriter
	month string
	cw    *csv.Writer // nil until the response started
}

func (sw *statementWriter) start() {
	h := sw.w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="skygate-statement-`+sw.month+`.csv"`)
	h.Set("Cache-Control", "no-store")
	sw.w.WriteHeader(http.StatusOK)
	sw.cw = csv.NewWriter(sw.w)
	sw.cw.UseCRLF = true
	_ = sw.cw.Write(statementColumns)
}

// lines writes a chunk of lines and flushes it to the client.
func (sw *statementWriter) lines(entries []*skygate.LedgerEntry) error {
	if sw.cw == nil {
		sw.start()
	}
	for _, e := range entries {
		booking, iccid := "", ""
		if e.BookingID != nil {
			booking = *e.BookingID
		}
		if e.ICCID != nil {
			iccid = *e.ICCID
		}
		_ = sw.cw.Write([]string{e.ID, e.CreatedAt.UTC().Format(time.RFC3339Nano), string(e.Kind),
			strconv.FormatInt(e.Amount.Amount, 10), e.Amount.Currency, strconv.FormatInt(e.BalanceAfter, 10),
			safeCell(booking), safeCell(e.Reference), safeCell(e.Description), iccid})
	}
	sw.cw.Flush()
	return sw.cw.Error()
}

// finish ends a statement read to its end: the header row alone for a month without
// lines.
func (sw *statementWriter) finish() error {
	if sw.cw == nil {
		sw.start()
		sw.cw.Flush()
	}
	return sw.cw.Error()
}

// safeCell keeps a spreadsheet from reading a free text as a formula (CSV injection,
// per OWASP): a cell that starts with a tab or a carriage return, or whose first
// character after any leading spaces and quotes is =, +, - or @, gets a leading '.
// Spreadsheets skip those spaces and quotes before deciding that a cell is a formula.
func safeCell(v string) string {
	if v == "" {
		return v
	}
	if v[0] == '\t' || v[0] == '\r' {
		return "'" + v
	}
	if rest := strings.TrimLeft(v, ` "'`); rest != "" && strings.ContainsRune("=+-@\t\r", rune(rest[0])) {
		return "'" + v
	}
	return v
}

// acceptsCSV reports whether the Accept header allows text/csv: absent, or giving it
// a weight above zero through its most specific matching range (acceptQuality).
func acceptsCSV(accept string) bool {
	return acceptQuality(accept, "text/csv") > 0
}
