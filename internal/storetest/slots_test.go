package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// slotTests cover the fast-tracks' capacity slots: bookings take places at create
// and give them back when they end unused, and no slot is ever oversold.
var slotTests = []test{
	{"Race", testSlotRace},
	{"GivenBack", testSlotGivenBack},
	{"ExpiryGivesBack", testSlotExpiry},
	{"NoPlaces", testSlotNoPlaces},
	{"Usage", testSlotUsage},
}

// slotStart is the suite's slot: 10:00 UTC on its bookings' service date.
var slotStart = time.Date(2025, 3, 20, 10, 0, 0, 0, time.UTC)

// WithSlot gives a booking n adult passengers and their places in the fast-track's
// slot at start, whose catalog capacity is capacity.
func WithSlot(fastTrackID string, start time.Time, n, capacity int) func(*skygate.Booking) {
	return func(b *skygate.Booking) {
		b.FastTrackID = fastTrackID
		b.Passengers = nil
		for range n {
			b.Passengers = append(b.Passengers, skygate.Passenger{FirstName: "Ada", LastName: "L", Type: skygate.PassengerAdult})
		}
		b.Slot = &skygate.BookingSlot{Start: start, Places: skygate.Places(b.Passengers), Capacity: capacity}
	}
}

// createSlotted creates a booking with WithSlot and returns it and the error.
func createSlotted(t *testing.T, s skygate.Store, accountID, fastTrackID string, n, capacity int) (*skygate.Booking, error) {
	b := NewBooking(accountID, WithSlot(fastTrackID, slotStart, n, capacity))
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "key-"+NewID(), "fp"), b, nil)
	return b, err
}

// wantUsed checks the places held in the fast-track's slot at slotStart.
func wantUsed(t *testing.T, s skygate.Store, fastTrackID string, want int) {
	t.Helper()
	got, err := s.SlotUsage(t.Context(), fastTrackID, slotStart, slotStart.Add(time.Hour))
	MustNoError(t, err, "SlotUsage")
	wantEqual(t, "places used", got[slotStart], want)
}

// testSlotRace: 20 accounts book one place each at once in a slot of 5.
func testSlotRace(t *testing.T, s skygate.Store) {
	const bookers, capacity = 20, 5
	ft := skygate.NewID()
	accounts := make([]string, bookers)
	for i := range accounts {
		accounts[i] = MustCreateAccount(t, s).ID
	}
	errs := make([]error, bookers)
	created := make([]*skygate.Booking, bookers)
	var wg sync.WaitGroup
	for i := range bookers {
		wg.Go(func() { created[i], errs[i] = createSlotted(t, s, accounts[i], ft, 1, capacity) })
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch skygate.ErrorCode(err) {
		case "":
			ok++
		case skygate.CodeSlotFull:
			_, err := s.Booking(t.Context(), accounts[i], created[i].ID)
			WantCode(t, err, skygate.CodeNotFound) // nothing of a refused booking is kept
		default:
			t.Fatalf("create %d: %v", i, err)
		}
	}
	wantEqual(t, "bookings created", ok, capacity)
	wantUsed(t, s, ft, capacity)
}

// testSlotGivenBack: cancellation gives places back from Pending, Issued and
// Confirmed; a Completed booking keeps them.
func testSlotGivenBack(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s).ID
	ft := skygate.NewID()
	var bs []*skygate.Booking
	for range 3 {
		b, err := createSlotted(t, s, acc, ft, 2, 6)
		MustNoError(t, err, "create")
		bs = append(bs, b)
	}
	_, err := createSlotted(t, s, acc, ft, 1, 6)
	WantCode(t, err, skygate.CodeSlotFull)
	wantUsed(t, s, ft, 6)

	MustTransition(t, s, bs[0], At(time.Minute), skygate.TriggerCancel) // from Pending
	wantUsed(t, s, ft, 4)
	MustTransition(t, s, bs[1], At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm, skygate.TriggerCancel)
	wantUsed(t, s, ft, 2)
	MustTransition(t, s, bs[2], At(time.Minute), skygate.TriggerIssue, skygate.TriggerConfirm, skygate.TriggerUse)
	wantUsed(t, s, ft, 2)
	// The freed places are bookable again.
	_, err = createSlotted(t, s, acc, ft, 4, 6)
	MustNoError(t, err, "create into freed places")
	wantUsed(t, s, ft, 6)
}

// testSlotExpiry: an Issued booking that the claimer expires gives its places back.
func testSlotExpiry(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s).ID
	ft := skygate.NewID()
	b, err := createSlotted(t, s, acc, ft, 3, 3)
	MustNoError(t, err, "create")
	now := At(time.Minute)
	MustTransition(t, s, b, now, skygate.TriggerIssue)
	wantUsed(t, s, ft, 3)
	n, err := s.ClaimBookings(t.Context(), skygate.BookingIssued, skygate.TriggerExpire, now.Add(ConfirmWindow+time.Second), 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings expire")
	if n < 1 {
		t.Fatalf("expired %d bookings", n)
	}
	wantEqual(t, "status", MustBooking(t, s, acc, b.ID).Status, skygate.BookingExpired)
	wantUsed(t, s, ft, 0)
}

// testSlotNoPlaces: infants take no place, so a booking of infants fits a slot of
// capacity 0; and a booking larger than the capacity is refused outright.
func testSlotNoPlaces(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s).ID
	ft := skygate.NewID()
	b := NewBooking(acc, WithSlot(ft, slotStart, 1, 0))
	b.Passengers[0].Type = skygate.PassengerInfant
	b.Slot.Places = skygate.Places(b.Passengers)
	_, err := s.CreateBooking(t.Context(), NewRecord(b, "k", "fp"), b, nil)
	MustNoError(t, err, "create infants")
	MustTransition(t, s, MustBooking(t, s, acc, b.ID), At(time.Minute), skygate.TriggerCancel)
	wantUsed(t, s, ft, 0)
	_, err = createSlotted(t, s, acc, skygate.NewID(), 4, 3)
	WantCode(t, err, skygate.CodeSlotFull)
}

// testSlotUsage: SlotUsage reads one fast-track's slots in a range, every account's
// bookings counted.
func testSlotUsage(t *testing.T, s skygate.Store) {
	a, b := MustCreateAccount(t, s).ID, MustCreateAccount(t, s).ID
	ft, other := skygate.NewID(), skygate.NewID()
	for i, start := range []time.Time{slotStart, slotStart, slotStart.Add(time.Hour), slotStart.Add(24 * time.Hour)} {
		acc := []string{a, b}[i%2]
		bk := NewBooking(acc, WithSlot(ft, start, i+1, 100))
		_, err := s.CreateBooking(t.Context(), NewRecord(bk, "key-"+NewID(), "fp"), bk, nil)
		MustNoError(t, err, "create")
	}
	_, err := createSlotted(t, s, a, other, 1, 100)
	MustNoError(t, err, "create other")
	got, err := s.SlotUsage(t.Context(), ft, slotStart, slotStart.Add(24*time.Hour))
	MustNoError(t, err, "SlotUsage")
	wantEqual(t, "usage", got, map[time.Time]int{slotStart: 3, slotStart.Add(time.Hour): 3})
	if _, ok, err := s.FastTrackCapacity(t.Context(), ft); err != nil || ok {
		t.Fatalf("FastTrackCapacity = %v %v, want none", ok, err)
	}
}
