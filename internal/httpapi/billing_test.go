package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
)

func TestSafeCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"order 42", "order 42"},
		{"a=b", "a=b"},
		{"O'Brien", "O'Brien"},
		{"=1+1", "'=1+1"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"  =1+1", "'  =1+1"},
		{`"=HYPERLINK("x")`, `'"=HYPERLINK("x")`},
		{`' "@cmd`, `'' "@cmd`},
		{" \t=1", "' \t=1"},
		{"   ", "   "},
		{`"quoted"`, `"quoted"`},
	} {
		if got := safeCell(tc.in); got != tc.want {
			t.Errorf("safeCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStatementCSV pins the statement's bytes, written in two chunks, to those the
// one-shot writer produced before the statement was streamed, and the headers.
func TestStatementCSV(t *testing.T) {
	t.Parallel()
	bk, iccid := "b-1", "8901260000000000008"
	entries := []*skygate.LedgerEntry{
		{ID: "l-1", Kind: skygate.LedgerCredit, Amount: skygate.Money{Amount: 10000, Currency: "EUR"}, BalanceAfter: 10000,
			Reference: "wire 7", Description: "top up, \"March\"", CreatedAt: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "l-2", Kind: skygate.LedgerReservation, Amount: skygate.Money{Amount: -3500, Currency: "EUR"}, BalanceAfter: 6500, BookingID: &bk,
			Reference: "b-1", Description: "=HYPERLINK(\"x\")\nline two", CreatedAt: time.Date(2025, 3, 2, 10, 30, 0, 123456000, time.FixedZone("X", 3600))},
		{ID: "l-3", Kind: skygate.LedgerRefund, Amount: skygate.Money{Amount: 500, Currency: "EUR"}, BalanceAfter: 7000, ICCID: &iccid,
			Reference: "o-1", Description: "eSIM canceled", CreatedAt: time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)},
	}
	// iccid joined the end of the row with the cancel of eSIMs (issue 39); only refund
	// lines of a cancel fill it.
	const header = "id,created_at,kind,amount,currency,balance_after,booking_id,reference,description,iccid\r\n"
	for _, tc := range []struct {
		name   string
		chunks [][]*skygate.LedgerEntry
		want   string
	}{
		{"two chunks", [][]*skygate.LedgerEntry{entries[:1], entries[1:]}, header +
			"l-1,2025-03-01T00:00:00Z,credit,10000,EUR,10000,,wire 7,\"top up, \"\"March\"\"\",\r\n" +
			"l-2,2025-03-02T09:30:00.123456Z,reservation,-3500,EUR,6500,b-1,b-1,\"'=HYPERLINK(\"\"x\"\")\r\nline two\",\r\n" +
			"l-3,2025-03-03T00:00:00Z,refund,500,EUR,7000,,o-1,eSIM canceled,8901260000000000008\r\n"},
		{"a month without lines", nil, header},
	} {
		rec := httptest.NewRecorder()
		sw := &statementWriter{w: rec, month: "2025-03"}
		for _, c := range tc.chunks {
			if err := sw.lines(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.finish(); err != nil {
			t.Fatal(err)
		}
		if got := rec.Body.String(); got != tc.want {
			t.Errorf("%s: body %q, want %q", tc.name, got, tc.want)
		}
		for k, v := range map[string]string{"Content-Type": "text/csv; charset=utf-8", "Cache-Control": "no-store",
			"Content-Disposition": `attachment; filename="skygate-statement-2025-03.csv"`} {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s: %s %q, want %q", tc.name, k, got, v)
			}
		}
		if rec.Code != 200 {
			t.Errorf("%s: status %d", tc.name, rec.Code)
		}
	}
}

// pagedLedger serves full statement chunks until failAt, then fails.
type pagedLedger struct {
	esim.Store
	calls, failAt int
}

func (p *pagedLedger) LedgerBetween(_ context.Context, _ string, from, _ time.Time, after int64, limit int) ([]*skygate.LedgerEntry, int64, error) {
	p.calls++
	if p.calls == p.failAt {
		return nil, 0, errors.New("connection reset")
	}
	lines := make([]*skygate.LedgerEntry, limit)
	for i := range lines {
		lines[i] = &skygate.LedgerEntry{ID: fmt.Sprint(after + int64(i) + 1), Kind: skygate.LedgerCredit,
			Amount: skygate.Money{Amount: 1, Currency: "EUR"}, CreatedAt: from}
	}
	return lines, after + int64(limit), nil
}

// TestStatementFailure checks both sides of the first byte: a failure reading the
// first chunk is a clean problem; one after a chunk went out aborts the response and
// is logged.
func TestStatementFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		failAt int
		abort  bool
	}{{"first chunk", 1, false}, {"second chunk", 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			none := http.NotFoundHandler()
			s := NewServer(Deps{TokenEndpoint: none, JWKS: none, Discovery: none, Log: slog.New(slog.NewTextHandler(&log, nil)),
				ESIM: esim.New(esim.Config{Store: &pagedLedger{failAt: tc.failAt}, StatementChunk: 3})})
			rec := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, "/v2/b2b/billing/statements/2025-03", nil)
			r.SetPathValue("month", "2025-03")
			var err error
			aborted := func() (v any) {
				defer func() { v = recover() }()
				err = s.billingStatement(rec, r)
				return nil
			}()
			if !tc.abort {
				if aborted != nil || err == nil || rec.Body.Len() != 0 {
					t.Fatalf("panic %v, err %v, body %q: want an error and nothing written", aborted, err, rec.Body)
				}
				return
			}
			if aborted != http.ErrAbortHandler {
				t.Fatalf("panic %v (err %v), want http.ErrAbortHandler", aborted, err)
			}
			if lines := strings.Count(rec.Body.String(), "\r\n"); lines != 4 {
				t.Errorf("%d lines went out before the abort, want the header and one chunk of 3: %q", lines, rec.Body)
			}
			if !strings.Contains(log.String(), "statement aborted") || !strings.Contains(log.String(), "connection reset") {
				t.Errorf("the abort was not logged with its cause: %s", log.String())
			}
		})
	}
}
