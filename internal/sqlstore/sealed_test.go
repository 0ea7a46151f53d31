package sqlstore

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal/sealtest"
)

// TestSealedValuesStayInTheirRow: a sealed value opens in its own row and column only,
// so that rows cannot be swapped in the database; an opened value is what was sealed.
func TestSealedValuesStayInTheirRow(t *testing.T) {
	t.Parallel()
	sealer := sealtest.New(t)
	a := &skygate.Booking{ID: "booking-a", AccountID: "account", Passengers: []skygate.Passenger{
		{FirstName: "Ada", LastName: "Lovelace", PassportNumber: "FA1234567", Email: "ada@example.com"}}}
	sealed, err := sealPassengers(sealer, a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "FA1234567") || strings.Contains(string(sealed), "Lovelace") {
		t.Fatalf("sealed passengers hold them in clear: %q", sealed)
	}
	got := &skygate.Booking{ID: a.ID, AccountID: a.AccountID}
	if err := openPassengers(sealer, got, sealed); err != nil || !reflect.DeepEqual(got.Passengers, a.Passengers) {
		t.Fatalf("openPassengers = %+v, %v; want %+v", got.Passengers, err, a.Passengers)
	}
	for _, other := range []*skygate.Booking{{ID: "booking-b", AccountID: a.AccountID}, {ID: a.ID, AccountID: "other-account"}} {
		if err := openPassengers(sealer, other, sealed); err == nil || strings.Contains(err.Error(), "FA1234567") {
			t.Errorf("booking %s of %s opened another row's passengers (%v)", other.ID, other.AccountID, err)
		}
	}

	rec := &skygate.IdempotencyRecord{AccountID: "account", Operation: skygate.OperationCreateBooking, Key: "k",
		Fingerprint: []byte("fingerprint"), Body: []byte(`{"passport_number":"FA1234567"}`)}
	fp, body, err := sealIdempotency(sealer, rec)
	if err != nil {
		t.Fatal(err)
	}
	opened := *rec
	opened.Fingerprint, opened.Body = fp, body
	if err := openIdempotency(sealer, &opened); err != nil || !reflect.DeepEqual(&opened, rec) {
		t.Fatalf("openIdempotency = %+v, %v; want %+v", opened, err, rec)
	}
	for name, swap := range map[string]func(r *skygate.IdempotencyRecord){
		"columns swapped": func(r *skygate.IdempotencyRecord) { r.Fingerprint, r.Body = body, fp },
		"another key":     func(r *skygate.IdempotencyRecord) { r.Key = "other" },
		"another account": func(r *skygate.IdempotencyRecord) { r.AccountID = "other" },
	} {
		r := *rec
		r.Fingerprint, r.Body = fp, body
		swap(&r)
		if err := openIdempotency(sealer, &r); err == nil {
			t.Errorf("%s: the record opened", name)
		}
	}
}
