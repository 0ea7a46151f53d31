package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var passengerDataTests = []test{
	{"ReadBackWhole", testPassengerDataReadBack},
	{"EraseAfterCutoff", testPassengerDataErase},
	{"EraseLimit", testPassengerDataEraseLimit},
	{"EraseConcurrent", testPassengerDataEraseConcurrent},
	{"NothingLegacy", testPassengerDataNothingLegacy},
}

// testPassengerDataReadBack: every way of reading a booking gives its passengers
// whole, after the creation and after every transition (tenant, admin and claim).
func testPassengerDataReadBack(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	want := NewBooking(acc.ID, WithAllPersonalData).Passengers
	check := func(what string, b *skygate.Booking) {
		t.Helper()
		wantEqual(t, what+": passengers", b.Passengers, want)
		if b.PersonalDataRemovedAt != nil {
			t.Fatalf("%s: PersonalDataRemovedAt %v on a booking that keeps its data", what, b.PersonalDataRemovedAt)
		}
	}
	for _, to := range skygate.BookingStatuses {
		b := MustCreateBooking(t, s, acc.ID, WithAllPersonalData)
		check("created", MustBooking(t, s, acc.ID, b.ID))
		now := At(time.Minute)
		for _, tr := range PathTo(to) {
			got, err := s.TransitionBooking(t.Context(), acc.ID, b.ID, tr, now, ApplyLikeService)
			MustNoError(t, err, "TransitionBooking "+string(tr))
			check(string(tr)+" (returned)", got)
			check(string(tr)+" (read)", MustBooking(t, s, acc.ID, b.ID))
			now = now.Add(time.Minute)
		}
		admin, err := s.BookingAdmin(t.Context(), b.ID)
		MustNoError(t, err, "BookingAdmin")
		check(string(to)+" (admin)", admin)
	}
	list, _, err := s.ListBookings(t.Context(), acc.ID, "", skygate.Page{})
	MustNoError(t, err, "ListBookings")
	for _, b := range list {
		check("listed", b)
	}

	// The worker's claims and the admin's transition read and write the same way.
	claimed := MustCreateBooking(t, s, acc.ID, WithAllPersonalData)
	_, err = s.ClaimBookings(t.Context(), skygate.BookingPending, skygate.TriggerIssue, At(time.Hour), 0, ApplyLikeService)
	MustNoError(t, err, "ClaimBookings")
	check("claimed", MustBooking(t, s, acc.ID, claimed.ID))
	got, err := s.TransitionBookingAdmin(t.Context(), claimed.ID, skygate.TriggerCancel, At(2*time.Hour), ApplyLikeService, Audit("TransitionBookingAdmin"))
	MustNoError(t, err, "TransitionBookingAdmin")
	check("canceled by an employee", got)
	check("canceled by an employee (read)", MustBooking(t, s, acc.ID, claimed.ID))
}

// testPassengerDataErase: the erasure takes the personal data of the bookings whose
// service date is before the cutoff, of every account, and nothing else: names,
// status, history and pass stay, the account still reads its booking, another account
// still does not, and a second run finds nothing.
func testPassengerDataErase(t *testing.T, s skygate.Store) {
	acc, other := MustCreateAccount(t, s), MustCreateAccount(t, s)
	past := MustTransition(t, s, MustCreateBooking(t, s, acc.ID, WithAllPersonalData, WithServiceDate("2025-03-19")),
		At(time.Minute), PathTo(skygate.BookingCompleted)...)
	otherPast := MustCreateBooking(t, s, other.ID, WithAllPersonalData, WithServiceDate("2025-01-01"))
	atCutoff := MustCreateBooking(t, s, acc.ID, WithAllPersonalData, WithServiceDate("2025-03-20"))
	future := MustCreateBooking(t, s, acc.ID, WithAllPersonalData, WithServiceDate("2025-06-01"))
	now := At(90 * 24 * time.Hour)

	n, err := s.ErasePassengerData(t.Context(), "2025-03-20", now, 0)
	MustNoError(t, err, "ErasePassengerData")
	wantEqual(t, "erased", n, 2)

	for _, b := range []*skygate.Booking{past, otherPast} {
		got := MustBooking(t, s, b.AccountID, b.ID)
		want := b.Clone()
		want.Passengers = skygate.PassengerNames(b.Passengers)
		removed := Stored(now)
		want.PersonalDataRemovedAt = &removed
		wantEqual(t, "erased booking", got, want)
		admin, err := s.BookingAdmin(t.Context(), b.ID)
		MustNoError(t, err, "BookingAdmin")
		wantEqual(t, "erased booking (admin)", admin, want)
	}
	for _, b := range []*skygate.Booking{atCutoff, future} {
		wantEqual(t, "kept booking", MustBooking(t, s, acc.ID, b.ID), b)
	}
	_, err = s.Booking(t.Context(), other.ID, past.ID)
	WantCode(t, err, skygate.CodeNotFound)

	n, err = s.ErasePassengerData(t.Context(), "2025-03-20", now.Add(time.Hour), 0)
	MustNoError(t, err, "ErasePassengerData again")
	wantEqual(t, "erased again", n, 0)
	wantEqual(t, "removal time after a second run", *MustBooking(t, s, acc.ID, past.ID).PersonalDataRemovedAt, Stored(now))

	// An erased booking still moves, and keeps its names only.
	issued := MustTransition(t, s, otherPast, At(time.Hour), skygate.TriggerIssue)
	wantEqual(t, "passengers after a transition", issued.Passengers, skygate.PassengerNames(otherPast.Passengers))
	wantEqual(t, "passengers read after a transition", MustBooking(t, s, other.ID, otherPast.ID).Passengers, skygate.PassengerNames(otherPast.Passengers))
}

// testPassengerDataEraseLimit: a limited run erases that many, oldest service date
// first, and the next run goes on.
func testPassengerDataEraseLimit(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	var ids []string
	for _, date := range []string{"2025-01-03", "2025-01-01", "2025-01-02"} {
		ids = append(ids, MustCreateBooking(t, s, acc.ID, WithAllPersonalData, WithServiceDate(date)).ID)
	}
	n, err := s.ErasePassengerData(t.Context(), "2025-02-01", At(time.Hour), 2)
	MustNoError(t, err, "ErasePassengerData")
	wantEqual(t, "erased", n, 2)
	if MustBooking(t, s, acc.ID, ids[0]).PersonalDataRemovedAt != nil || MustBooking(t, s, acc.ID, ids[1]).PersonalDataRemovedAt == nil {
		t.Fatal("a limited erasure did not take the oldest service dates first")
	}
	n, err = s.ErasePassengerData(t.Context(), "2025-02-01", At(time.Hour), 2)
	MustNoError(t, err, "ErasePassengerData")
	wantEqual(t, "erased by the second run", n, 1)
}

// testPassengerDataEraseConcurrent: replicas erasing at once neither fail nor erase
// a booking twice.
func testPassengerDataEraseConcurrent(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const bookings, workers = 40, 6
	for i := range bookings {
		MustCreateBooking(t, s, acc.ID, WithAllPersonalData, WithServiceDate(fmt.Sprintf("2025-01-%02d", 1+i%28)))
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
	)
	for w := range workers {
		wg.Go(func() {
			for {
				n, err := s.ErasePassengerData(t.Context(), "2025-02-01", At(time.Duration(w)*time.Second), 5)
				if err != nil {
					t.Errorf("ErasePassengerData: %v", err)
					return
				}
				mu.Lock()
				total += n
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	// Every run above ended on a run that found nothing; no row is left.
	n, err := s.ErasePassengerData(t.Context(), "2025-02-01", At(time.Hour), 0)
	MustNoError(t, err, "ErasePassengerData after the race")
	wantEqual(t, "erased in all", total+n, bookings)
	list, _, err := s.ListBookings(t.Context(), acc.ID, "", skygate.Page{})
	MustNoError(t, err, "ListBookings")
	for _, b := range list {
		if b.PersonalDataRemovedAt == nil || len(PersonalValues(b)) != 0 {
			t.Fatalf("booking %s kept its personal data: %+v", b.ID, b.Passengers)
		}
	}
}

// testPassengerDataNothingLegacy: a store that wrote everything itself has nothing in
// clear to seal.
func testPassengerDataNothingLegacy(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	MustCreateBooking(t, s, acc.ID, WithAllPersonalData)
	MustCreateBooking(t, s, acc.ID, func(b *skygate.Booking) { b.Passengers = []skygate.Passenger{{FirstName: "Ada", LastName: "Lovelace"}} })
	n, err := s.SealLegacyData(t.Context(), 0)
	MustNoError(t, err, "SealLegacyData")
	wantEqual(t, "sealed", n, 0)
}
