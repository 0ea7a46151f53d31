package booking_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/storetest"
)

// TestLifecycle follows the typical flow on each engine: create, issue, confirm,
// pass, use.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			testLifecycle(t, setupStore(t, e.open(t)))
		})
	}
}

func testLifecycle(t *testing.T, b *bundle) {
	ctx := t.Context()
	created := b.MustCreate(t, request())

	_, err := b.svc.Pass(ctx, b.account, created.ID)
	storetest.WantCode(t, err, skygate.CodePassNotReady)
	_, err = b.svc.Confirm(ctx, b.account, created.ID)
	storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)

	b.clock.Advance(time.Second)
	if st := b.MustRun(t); st.Issued != 1 || st.Expired != 0 {
		t.Fatalf("RunOnce = %+v, want one issued", st)
	}
	issued, err := b.svc.Get(ctx, b.account, created.ID)
	storetest.MustNoError(t, err, "Get")
	issuedAt := Start.Add(time.Second)
	if issued.Status != skygate.BookingIssued || issued.ConfirmBefore == nil ||
		!issued.ConfirmBefore.Equal(issuedAt.Add(booking.DefaultConfirmWindow)) || issued.Pass == nil {
		t.Fatalf("issued booking = %+v", issued)
	}

	pass, err := b.svc.Pass(ctx, b.account, created.ID)
	storetest.MustNoError(t, err, "Pass")
	if pass.Status != skygate.PassActive || len(pass.Code) != booking.CodeLength || pass.BookingID != created.ID ||
		pass.Barcode != (skygate.Barcode{Format: "QR", Payload: "SKYGATE:" + created.ID + ":" + pass.Code}) ||
		!reflect.DeepEqual(pass.Passengers, created.Passengers) {
		t.Fatalf("pass = %+v", pass)
	}
	png, err := b.svc.PassPNG(ctx, b.account, created.ID)
	storetest.MustNoError(t, err, "PassPNG")
	wantPNG(t, png)

	confirmed, err := b.svc.Confirm(ctx, b.account, created.ID)
	storetest.MustNoError(t, err, "Confirm")
	if confirmed.Status != skygate.BookingConfirmed || !confirmed.ConfirmBefore.Equal(*issued.ConfirmBefore) {
		t.Fatalf("confirmed = %+v", confirmed)
	}
	_, err = b.svc.Confirm(ctx, b.account, created.ID)
	storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)

	// Confirmed bookings never expire.
	b.clock.Advance(time.Hour)
	if st := b.MustRun(t); st.Expired != 0 {
		t.Fatalf("a confirmed booking expired: %+v", st)
	}
	done, err := b.svc.Complete(ctx, created.ID, storetest.Audit("booking.complete"))
	storetest.MustNoError(t, err, "Complete")
	if done.Status != skygate.BookingCompleted {
		t.Fatalf("completed = %+v", done)
	}
	pass, err = b.svc.Pass(ctx, b.account, created.ID)
	storetest.MustNoError(t, err, "Pass after use")
	if pass.Status != skygate.PassUsed {
		t.Fatalf("pass status = %s, want Used", pass.Status)
	}
	wantEvents(t, b.eventsOf(t, created.ID),
		"booking.status.changed null→Pending", "booking.status.changed Pending→Issued", "pass.status.changed null→Active",
		"booking.status.changed Issued→Confirmed",
		"booking.status.changed Confirmed→Completed", "pass.status.changed Active→Used")
	var history []skygate.BookingStatus
	for _, h := range done.StatusHistory {
		history = append(history, h.Status)
	}
	if !reflect.DeepEqual(history, []skygate.BookingStatus{"Pending", "Issued", "Confirmed", "Completed"}) {
		t.Fatalf("history = %v", history)
	}
}

func TestExpire(t *testing.T) {
	t.Parallel()
	b := setup(t)
	created := b.MustCreate(t, request())
	b.MustRun(t)
	b.clock.Advance(booking.DefaultConfirmWindow)
	if st := b.MustRun(t); st.Expired != 0 {
		t.Fatalf("expired at the deadline: %+v", st)
	}
	b.clock.Advance(time.Microsecond)
	if st := b.MustRun(t); st.Expired != 1 {
		t.Fatalf("RunOnce after the deadline = %+v, want one expired", st)
	}
	_, err := b.svc.Confirm(t.Context(), b.account, created.ID)
	storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)
	pass, err := b.svc.Pass(t.Context(), b.account, created.ID)
	storetest.MustNoError(t, err, "Pass")
	if pass.Status != skygate.PassExpired {
		t.Fatalf("pass status = %s", pass.Status)
	}
	wantEvents(t, b.eventsOf(t, created.ID),
		"booking.status.changed null→Pending", "booking.status.changed Pending→Issued", "pass.status.changed null→Active",
		"booking.status.changed Issued→Expired", "pass.status.changed Active→Expired")
}

// TestConfirmAfterDeadline: a confirm that comes after confirm_before is refused even
// when the worker has not expired the booking yet; at the deadline itself it is in time.
func TestConfirmAfterDeadline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	late, onTime := b.MustCreate(t, request()), b.MustCreate(t, request())
	b.MustRun(t)
	b.clock.Advance(booking.DefaultConfirmWindow)
	_, err := b.svc.Confirm(t.Context(), b.account, onTime.ID)
	storetest.MustNoError(t, err, "Confirm at the deadline")
	b.clock.Advance(time.Microsecond)
	_, err = b.svc.Confirm(t.Context(), b.account, late.ID)
	storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)
	got, err := b.svc.Get(t.Context(), b.account, late.ID)
	storetest.MustNoError(t, err, "Get")
	if got.Status != skygate.BookingIssued {
		t.Fatalf("a refused confirm changed the booking: %s", got.Status)
	}
	if st := b.MustRun(t); st.Expired != 1 {
		t.Fatalf("RunOnce after the deadline = %+v, want the late one expired", st)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()

	pending := b.MustCreate(t, request())
	got, err := b.svc.Cancel(ctx, b.account, pending.ID)
	storetest.MustNoError(t, err, "Cancel Pending")
	if got.Status != skygate.BookingCanceled || got.Pass != nil {
		t.Fatalf("canceled = %+v", got)
	}
	_, err = b.svc.Pass(ctx, b.account, pending.ID)
	storetest.WantCode(t, err, skygate.CodePassNotReady)
	_, err = b.svc.Cancel(ctx, b.account, pending.ID)
	storetest.WantCode(t, err, skygate.CodeInvalidBookingStatus)
	b.MustRun(t) // a canceled booking is not issued
	wantEvents(t, b.eventsOf(t, pending.ID), "booking.status.changed null→Pending", "booking.status.changed Pending→Canceled")

	issued := b.MustCreate(t, request())
	b.MustRun(t)
	_, err = b.svc.Cancel(ctx, b.account, issued.ID)
	storetest.MustNoError(t, err, "Cancel Issued")
	pass, err := b.svc.Pass(ctx, b.account, issued.ID)
	storetest.MustNoError(t, err, "Pass of a canceled booking")
	if pass.Status != skygate.PassVoided {
		t.Fatalf("pass status = %s, want Voided", pass.Status)
	}
	wantEvents(t, b.eventsOf(t, issued.ID),
		"booking.status.changed null→Pending", "booking.status.changed Pending→Issued", "pass.status.changed null→Active",
		"booking.status.changed Issued→Canceled", "pass.status.changed Active→Voided")
}

func TestSimulate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	bk := b.MustCreate(t, request())
	tests := []struct {
		event  string
		status skygate.BookingStatus
		code   string
	}{
		{"use", "", skygate.CodeInvalidBookingStatus},
		{"issue", skygate.BookingIssued, ""},
		{"issue", "", skygate.CodeInvalidBookingStatus},
		{"confirm", "", skygate.CodeValidation},
		{"expire", skygate.BookingExpired, ""},
	}
	for _, tt := range tests {
		got, err := b.svc.Simulate(ctx, b.account, bk.ID, tt.event)
		if tt.code != "" {
			storetest.WantCode(t, err, tt.code)
			continue
		}
		storetest.MustNoError(t, err, "Simulate "+tt.event)
		if got.Status != tt.status {
			t.Fatalf("Simulate(%s) = %s, want %s", tt.event, got.Status, tt.status)
		}
	}
	if got, err := b.svc.Get(ctx, b.account, bk.ID); err != nil || got.Pass == nil {
		t.Fatalf("a simulated issue has no pass: %+v, %v", got, err)
	}
}

// TestOtherAccount checks that another account's booking is not found, by any route.
func TestOtherAccount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bk := b.MustCreate(t, request())
	b.MustRun(t)
	ctx := t.Context()
	for _, id := range []string{bk.ID, skygate.NewID(), "not-a-uuid", ""} {
		calls := map[string]func() error{
			"Get":      func() error { _, err := b.svc.Get(ctx, b.other, id); return err },
			"Confirm":  func() error { _, err := b.svc.Confirm(ctx, b.other, id); return err },
			"Cancel":   func() error { _, err := b.svc.Cancel(ctx, b.other, id); return err },
			"Pass":     func() error { _, err := b.svc.Pass(ctx, b.other, id); return err },
			"PassPNG":  func() error { _, err := b.svc.PassPNG(ctx, b.other, id); return err },
			"Simulate": func() error { _, err := b.svc.Simulate(ctx, b.other, id, "expire"); return err },
		}
		for name, call := range calls {
			if err := call(); !skygate.IsCode(err, skygate.CodeNotFound) {
				t.Errorf("%s(%q) = %v, want NotFound", name, id, err)
			}
		}
	}
	list, total, err := b.svc.List(ctx, b.other, "", skygate.Page{Limit: 10})
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("other account's list = %v, %d, %v", list, total, err)
	}
	if got, err := b.svc.Get(ctx, b.account, bk.ID); err != nil || got.Status != skygate.BookingIssued {
		t.Fatalf("the owner's booking changed: %+v, %v", got, err)
	}
	_, err = b.svc.Complete(ctx, skygate.NewID(), storetest.Audit("booking.complete"))
	storetest.WantCode(t, err, skygate.CodeNotFound)
	_, err = b.svc.AdminGet(ctx, "nope")
	storetest.WantCode(t, err, skygate.CodeNotFound)
}

func TestList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.MustCreate(t, request())
	b.clock.Advance(time.Second)
	second := b.MustCreate(t, request())
	_, err := b.svc.Cancel(t.Context(), b.account, first.ID)
	storetest.MustNoError(t, err, "Cancel")
	tests := []struct {
		status string
		want   []string
	}{
		{"", []string{second.ID, first.ID}},
		{"Canceled", []string{first.ID}},
		{"Pending", []string{second.ID}},
		{"Issued", nil},
	}
	for _, tt := range tests {
		list, total, err := b.svc.List(t.Context(), b.account, tt.status, skygate.Page{Limit: 10})
		storetest.MustNoError(t, err, "List")
		var ids []string
		for _, bk := range list {
			ids = append(ids, bk.ID)
		}
		if !reflect.DeepEqual(ids, tt.want) || total != len(tt.want) {
			t.Errorf("List(%q) = %v (total %d), want %v", tt.status, ids, total, tt.want)
		}
	}
	_, _, err = b.svc.List(t.Context(), b.account, "pending", skygate.Page{})
	storetest.WantCode(t, err, skygate.CodeBadRequest)
}

func wantEvents(tb testing.TB, got []string, want ...string) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("events\n got  %q\n want %q", got, want)
	}
}
