package idempotency_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key string
		ok  bool
	}{
		{"a", true},
		{"order 42/retry #1 ~!", true},
		{strings.Repeat("k", 255), true},
		{"", false},
		{strings.Repeat("k", 256), false},
		{"tab\there", false},
		{"ключ", false},
		{"nul\x00", false},
		{"del\x7f", false},
	}
	for _, tt := range tests {
		err := idempotency.ValidateKey(tt.key)
		if (err == nil) != tt.ok || (err != nil && !skygate.IsCode(err, skygate.CodeBadRequest)) {
			t.Errorf("ValidateKey(%q) = %v, want ok=%v", tt.key, err, tt.ok)
		}
	}
}

func mustFingerprint(t *testing.T, body string) string {
	t.Helper()
	sum, err := idempotency.Fingerprint([]byte(body))
	if err != nil {
		t.Fatalf("Fingerprint(%s): %v", body, err)
	}
	return hex.EncodeToString(sum)
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := mustFingerprint(t, `{"a":1,"b":{"c":"x","d":[1,2]}}`)
	for _, same := range []string{
		`{"b":{"d":[1,2],"c":"x"},"a":1}`,
		" {\n\t\"a\" : 1 , \"b\":{\"c\":\"\\u0078\",\"d\":[ 1,2 ]}}\n",
	} {
		if mustFingerprint(t, same) != base {
			t.Errorf("%s has another fingerprint", same)
		}
	}
	for _, other := range []string{
		`{"a":1,"b":{"c":"x","d":[2,1]}}`,
		`{"a":1.0,"b":{"c":"x","d":[1,2]}}`, // numbers count as written
		`{"a":"1","b":{"c":"x","d":[1,2]}}`,
		`{"a":1,"b":{"c":"x","d":[1,2]},"e":null}`,
	} {
		if mustFingerprint(t, other) == base {
			t.Errorf("%s has the same fingerprint", other)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`, `{"a":1}x`, `nul`} {
		if _, err := idempotency.Fingerprint([]byte(bad)); !skygate.IsCode(err, skygate.CodeBadRequest) {
			t.Errorf("Fingerprint(%q) error = %v, want BadRequest", bad, err)
		}
	}
}

// TestFingerprintStored holds Fingerprint to the fingerprints that earlier releases
// stored (computed by booking.Fingerprint's own canonical encoder), so that a retry
// after an upgrade still matches its record: HTML characters, U+2028 and U+2029,
// escapes, number forms, invalid UTF-8 and key order included.
func TestFingerprintStored(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, sum string }{
		{`{"fast_track_id":"11111111-1111-4111-8111-111111111111","service_date":"2025-06-03","flight":{"number":"HY601","direction":"departure"},"passengers":[{"first_name":"Ada","last_name":"Lovelace","date_of_birth":"1990-12-10","passport_number":"FA1234567","nationality":"UZ","email":"ada@example.com","phone":"+998901234567"}],"partner_reference":"PNR-42"}`,
			"be3716ba5446604abf09d3efaeb1b7917f168fe7284d61ec90b196d0fbed5e92"},
		{`{"passengers":[{"first_name":"Ада","last_name":"O'Neil\u2028\u2029 <b>&amp;</b>"}],"partner_reference":"\u0041\/\"\\\t\u0000\u001f\u007f","n":-0,"f":1.50e+3,"g":1.0,"h":12345678901234567890123,"z":[true,false,null,{},[]]}`,
			"90674b786c66e4cd449e8011763adbc5dc833a8ae8eaa51fefc0ab9fefdb8048"},
		{"{\"x\":\"\xff\xfe<script>\u2028\",\"\xc3\":1}",
			"51cb3ae2f6a7d3cc057dfa1a06d2ba5f88a7bcd3e83006db72efdc7eccbbb421"},
		{`{"b":{"d":[1,2],"c":"x"},"a":1}`,
			"a95fdc35fefe0ab6b786e722697fdf8b341e7c2d6e7683ee4810738a63d28449"},
	}
	for _, tt := range tests {
		if got := mustFingerprint(t, tt.body); got != tt.sum {
			t.Errorf("Fingerprint(%q) = %s, stored %s", tt.body, got, tt.sum)
		}
	}
}

// TestFingerprintOfStored holds FingerprintOf to what earlier releases stored for eSIM
// orders and top-ups, whose fingerprints cover the typed request.
func TestFingerprintOfStored(t *testing.T) {
	t.Parallel()
	order := struct {
		PackageID        string `json:"package_id"`
		Quantity         int    `json:"quantity"`
		PartnerReference string `json:"partner_reference"`
	}{"11111111-1111-4111-8111-111111111111", 2, "PNR <9> & co"}
	topUp := struct {
		ICCID     string `json:"iccid"`
		PackageID string `json:"package_id"`
	}{"8999901000000000013", "11111111-1111-4111-8111-111111111111"}
	for _, tt := range []struct {
		v   any
		sum string
	}{
		{order, "c79eda040094524ee55d48a92272c15ace94506fa22d810f785c2ea3fd3da764"},
		{topUp, "0069fe603a98f4dd29e27130fae6d3a4ddce4733febd4c2739f990ba4ab4f14a"},
	} {
		sum, err := idempotency.FingerprintOf(tt.v)
		storetest.MustNoError(t, err, "FingerprintOf")
		if got := hex.EncodeToString(sum); got != tt.sum {
			t.Errorf("FingerprintOf(%+v) = %s, stored %s", tt.v, got, tt.sum)
		}
	}
}

func TestRecordAndReplay(t *testing.T) {
	t.Parallel()
	s := sqlitetest.MustOpen(t)
	ctx := t.Context()
	acc := storetest.MustCreateAccount(t, s).ID
	now := time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)
	fp, err := idempotency.Fingerprint([]byte(`{"a":1}`))
	storetest.MustNoError(t, err, "Fingerprint")
	req := idempotency.Request{AccountID: acc, Operation: skygate.OperationCreateBooking, Key: "k", Fingerprint: fp}

	_, err = idempotency.Lookup(ctx, s, req, now)
	storetest.WantCode(t, err, skygate.CodeNotFound)

	b := storetest.NewBooking(acc)
	b.PartnerReference = "<&> \u2028"
	rec, err := req.Record(b.ID, b, now)
	storetest.MustNoError(t, err, "Record")
	if !rec.ExpiresAt.Equal(now.Add(idempotency.Lifetime)) || rec.ResourceID != b.ID || rec.Key != "k" || rec.AccountID != acc {
		t.Fatalf("record %+v", rec)
	}
	want := b.Clone() // as answered: the store normalises b's times
	replay, err := s.CreateBooking(ctx, rec, b, nil)
	if err != nil || replay != nil {
		t.Fatalf("CreateBooking = %v, %v", replay, err)
	}

	got, err := idempotency.Lookup(ctx, s, req, now.Add(time.Hour))
	storetest.MustNoError(t, err, "Lookup")
	var answer skygate.Booking
	storetest.MustNoError(t, idempotency.Answer(got, &answer), "Answer")
	if answer.ID != want.ID || answer.PartnerReference != want.PartnerReference || !answer.CreatedAt.Equal(want.CreatedAt) ||
		!reflect.DeepEqual(answer.Passengers, want.Passengers) {
		t.Fatalf("answer %+v, want %+v", answer, want)
	}

	other := req
	other.Fingerprint, _ = idempotency.Fingerprint([]byte(`{"a":2}`))
	_, err = idempotency.Lookup(ctx, s, other, now)
	storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
	storetest.WantCode(t, other.Match(got), skygate.CodeIdempotencyConflict)

	// Keys are per account and operation, and forgotten after Lifetime.
	elsewhere := req
	elsewhere.Operation = skygate.OperationESIMOrder
	_, err = idempotency.Lookup(ctx, s, elsewhere, now)
	storetest.WantCode(t, err, skygate.CodeNotFound)
	_, err = idempotency.Lookup(ctx, s, req, now.Add(idempotency.Lifetime))
	storetest.WantCode(t, err, skygate.CodeNotFound)
}

// TestAnswerOfEarlierRecords reads a record as earlier releases wrote it (the
// booking's JSON as the HTTP body, with the status beside it) and encodes the answer
// back to the same bytes: a replay of it renders the first answer.
func TestAnswerOfEarlierRecords(t *testing.T) {
	t.Parallel()
	rec := &skygate.IdempotencyRecord{StatusCode: 202, ResourceID: "b1",
		Body: []byte(`{"id":"b1","status":"Pending","fast_track_id":"f","service_date":"2025-06-03","flight":{"number":"HY601","direction":"departure"},"passengers":[{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}],"partner_reference":"","confirm_before":null,"created_at":"2025-06-01T20:00:00Z","updated_at":"2025-06-01T20:00:00Z","status_history":[{"status":"Pending","at":"2025-06-01T20:00:00Z"}],"personal_data_removed_at":null}`)}
	var b skygate.Booking
	storetest.MustNoError(t, idempotency.Answer(rec, &b), "Answer")
	if b.ID != "b1" || b.Status != skygate.BookingPending || b.Passengers[0].Email != "ada@example.com" || len(b.StatusHistory) != 1 {
		t.Fatalf("answer %+v", b)
	}
	again, err := json.Marshal(&b)
	storetest.MustNoError(t, err, "Marshal")
	if !bytes.Equal(again, rec.Body) {
		t.Fatalf("the answer encodes as\n %s\nnot as stored\n %s", again, rec.Body)
	}
}

// BenchmarkFingerprint measures the canonical hash of a full create request.
func BenchmarkFingerprint(b *testing.B) {
	body := []byte(`{"fast_track_id":"11111111-1111-4111-8111-111111111111","service_date":"2025-06-03","flight":{"number":"HY601","direction":"departure"},"passengers":[{"first_name":"Ada","last_name":"Lovelace","date_of_birth":"1990-12-10","passport_number":"FA1234567","nationality":"UZ","email":"ada@example.com","phone":"+998901234567"}],"partner_reference":"PNR-42"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := idempotency.Fingerprint(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordKeepsEarlierReleasesStatus: a record carries the status that releases
// before this package replay from it, so that a replica of such a release, running
// beside this one during a rollout, answers a retry as the first answer did.
func TestRecordKeepsEarlierReleasesStatus(t *testing.T) {
	t.Parallel()
	for op, want := range map[string]int{
		skygate.OperationCreateBooking: 202,
		skygate.OperationESIMOrder:     201,
		skygate.OperationESIMTopUp:     201,
	} {
		req := idempotency.Request{AccountID: "a", Operation: op, Key: "k", Fingerprint: []byte{1}}
		rec, err := req.Record("r", map[string]string{"id": "r"}, time.Now())
		storetest.MustNoError(t, err, "Record")
		if rec.StatusCode != want {
			t.Errorf("%s: StatusCode = %d, want %d", op, rec.StatusCode, want)
		}
	}
}
