package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// KeyLifetime is how long the suite's idempotency records live (CONTRACT §4: 72 h).
const KeyLifetime = 72 * time.Hour

// NewBooking returns a valid, live, Pending booking of the account created at T0, not
// yet stored; opts change it.
func NewBooking(accountID string, opts ...func(*skygate.Booking)) *skygate.Booking {
	b := &skygate.Booking{
		ID:          skygate.NewID(),
		AccountID:   accountID,
		ClientID:    "client-" + NewID(),
		Status:      skygate.BookingPending,
		FastTrackID: skygate.NewID(),
		ServiceDate: "2025-03-20",
		Flight:      skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture},
		Passengers: []skygate.Passenger{
			{FirstName: "Ada", LastName: "Lovelace", DateOfBirth: "1990-12-10", Email: "ada@example.com"},
			{FirstName: "Alan", LastName: "Turing", Phone: "+998901234567"},
		},
		PartnerReference: "ref-" + NewID(),
		CreatedAt:        T0,
		UpdatedAt:        T0,
		Livemode:         true,
	}
	for _, o := range opts {
		o(b)
	}
	if b.StatusHistory == nil {
		b.StatusHistory = []skygate.StatusChange{{Status: b.Status, At: b.CreatedAt}}
	}
	return b
}

// NewRecord returns the idempotency record of create-booking with key for b, created
// at b.CreatedAt and living KeyLifetime.
func NewRecord(b *skygate.Booking, key string, fingerprint string) *skygate.IdempotencyRecord {
	return &skygate.IdempotencyRecord{
		AccountID:   b.AccountID,
		Operation:   skygate.OperationCreateBooking,
		Key:         key,
		Fingerprint: []byte(fingerprint),
		StatusCode:  202,
		ResourceID:  b.ID,
		Body:        []byte(`{"id":"` + b.ID + `"}`),
		CreatedAt:   b.CreatedAt,
		ExpiresAt:   b.CreatedAt.Add(KeyLifetime),
	}
}

// MustCreateBooking stores NewBooking(accountID, opts...) under a random idempotency
// key and returns it as stored.
func MustCreateBooking(tb testing.TB, s skygate.Store, accountID string, opts ...func(*skygate.Booking)) *skygate.Booking {
	tb.Helper()
	b := NewBooking(accountID, opts...)
	replay, err := s.CreateBooking(tb.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, nil)
	MustNoError(tb, err, "CreateBooking")
	if replay != nil {
		tb.Fatalf("CreateBooking with a new key replayed %+v", replay)
	}
	return b
}

// MustBooking reads the account's booking back.
func MustBooking(tb testing.TB, s skygate.Store, accountID, bookingID string) *skygate.Booking {
	tb.Helper()
	b, err := s.Booking(tb.Context(), accountID, bookingID)
	MustNoError(tb, err, "Booking")
	return b
}

// MustTransition applies the triggers in order at now with ApplyLikeService and
// returns the booking after the last.
func MustTransition(tb testing.TB, s skygate.Store, b *skygate.Booking, now time.Time, triggers ...skygate.Trigger) *skygate.Booking {
	tb.Helper()
	for _, t := range triggers {
		var err error
		b, err = s.TransitionBooking(tb.Context(), b.AccountID, b.ID, t, now, ApplyLikeService)
		MustNoError(tb, err, "TransitionBooking "+string(t))
	}
	return b
}

// ConfirmWindow is the confirmation deadline ApplyLikeService sets.
const ConfirmWindow = 30 * time.Minute

// ApplyLikeService does what the booking service does in a transition, in a simpler
// form: on issue it sets a pass and ConfirmBefore (ConfirmWindow after the
// transition), and it returns the events of the change.
func ApplyLikeService(before, after *skygate.Booking) ([]*skygate.Event, error) {
	if after.Status == skygate.BookingIssued {
		deadline := after.UpdatedAt.Add(ConfirmWindow)
		after.ConfirmBefore = &deadline
		code := NewID()
		after.Pass = &skygate.Pass{
			Code:       code,
			Payload:    "SKYGATE:" + after.ID + ":" + code,
			ValidFrom:  after.UpdatedAt,
			ValidUntil: after.UpdatedAt.Add(48 * time.Hour),
		}
	}
	return skygate.BookingEvents(before, after, after.UpdatedAt)
}

// WithBookingCreated sets the booking's creation and update time.
func WithBookingCreated(t time.Time) func(*skygate.Booking) {
	return func(b *skygate.Booking) { b.CreatedAt, b.UpdatedAt = t, t }
}

// MustEventsAfter lists the events after seq.
func MustEventsAfter(tb testing.TB, s skygate.Store, seq int64) []*skygate.Event {
	tb.Helper()
	events, err := s.EventsAfter(tb.Context(), seq, 0)
	MustNoError(tb, err, "EventsAfter")
	return events
}

// WithAllPersonalData gives the booking two passengers with every personal field.
func WithAllPersonalData(b *skygate.Booking) {
	b.Passengers = []skygate.Passenger{
		{FirstName: "Aziza", LastName: "Karimova", DateOfBirth: "1990-04-01", PassportNumber: "FA1234567",
			Nationality: "UZ", Email: "aziza@example.com", Phone: "+998901234567"},
		{FirstName: "Ли", LastName: `O"Brien <&>`, DateOfBirth: "1985-12-31", PassportNumber: "AB7654321",
			Nationality: "KZ", Email: "li.obrien@example.org", Phone: "+77011234567"},
	}
}

// WithServiceDate sets the booking's service date.
func WithServiceDate(date string) func(*skygate.Booking) {
	return func(b *skygate.Booking) { b.ServiceDate = date }
}
