package booking_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// lifecycleModel is the booking state machine of SPEC §3 and CONTRACT §4 written as
// plain rules, independently of skygate.Transition: the status, whether a pass was
// ever issued, the history, and the events each step must have written.
type lifecycleModel struct {
	status  string
	issued  bool
	history []string
	events  []string // "booking:Prev>Next" and "pass:Prev>Next" ("" before the first)
}

// passOf is the pass status the contract gives a booking status ("" when none).
func (m *lifecycleModel) passOf(status string) string {
	if !m.issued {
		return ""
	}
	return map[string]string{"Issued": "Active", "Confirmed": "Active", "Completed": "Used", "Canceled": "Voided", "Expired": "Expired"}[status]
}

// step applies an operation; ok is false when the contract refuses it (409).
func (m *lifecycleModel) step(op string) (ok bool) {
	var next string
	switch {
	case op == "cancel" && m.status != "Canceled":
		next = "Canceled"
	case op == "issue" && m.status == "Pending":
		next = "Issued"
	case op == "confirm" && m.status == "Issued", op == "expire" && m.status == "Issued":
		next = map[string]string{"confirm": "Confirmed", "expire": "Expired"}[op]
	case op == "use" && m.status == "Confirmed", op == "complete" && m.status == "Confirmed":
		next = "Completed"
	default:
		return false
	}
	prevPass := m.passOf(m.status)
	if next == "Issued" {
		m.issued = true
	}
	m.events = append(m.events, "booking:"+m.status+">"+next)
	if p := m.passOf(next); p != "" && p != prevPass {
		m.events = append(m.events, "pass:"+prevPass+">"+p)
	}
	m.status = next
	m.history = append(m.history, next)
	return true
}

// lifecycleOps are the operations a fuzz byte chooses from: the partner's confirm and
// cancel, the sandbox simulations (issue, use, expire, and one the contract does not
// know), and the employee's complete.
var lifecycleOps = []string{"confirm", "cancel", "issue", "use", "expire", "complete", "explode"}

// FuzzLifecycle runs arbitrary sequences of operations on one new booking through the
// service and a real store (SQLite), and compares every answer, the final booking, its
// status history and the events written to the outbox with lifecycleModel. It proves
// that a refused operation changes nothing and writes no event, that every accepted
// one writes exactly the events of CONTRACT §5 in the same transaction, and that
// Canceled, Completed and Expired bookings move only as the contract allows.
func FuzzLifecycle(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {2, 0, 5}, {2, 0, 3}, {2, 4}, {1, 1}, {2, 1, 0}, {0, 2, 2, 0, 0, 5, 5, 1},
		{2, 0, 1, 1}, {2, 4, 1}, {6, 2, 6}, {3, 3, 2, 3, 5, 0, 4},
	} {
		f.Add(seed)
	}
	b := setupStore(f, sqlitetest.MustOpen(f))
	ctx := context.Background()
	var seen int64 // the outbox before this input's booking; fuzz inputs run one at a time per process
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 24 {
			ops = ops[:24]
		}
		created, _, err := b.create(t, b.account, "client", skygate.NewID(), mustJSON(t, request()))
		if err != nil {
			t.Fatal(err)
		}
		id := created.ID
		m := &lifecycleModel{status: "Pending", history: []string{"Pending"}, events: []string{"booking:>Pending"}}
		for i, o := range ops {
			op := lifecycleOps[int(o)%len(lifecycleOps)]
			var got *skygate.Booking
			switch op {
			case "confirm":
				got, err = b.svc.Confirm(ctx, b.account, id)
			case "cancel":
				got, err = b.svc.Cancel(ctx, b.account, id)
			case "complete":
				got, err = b.svc.Complete(ctx, id, storetest.Audit("booking.complete"))
			default:
				got, err = b.svc.Simulate(ctx, b.account, id, op)
			}
			before := m.status
			switch ok := m.step(op); {
			case op == "explode":
				if !skygate.IsCode(err, skygate.CodeValidation) {
					t.Fatalf("step %d %s: %v, want a validation error", i, op, err)
				}
			case ok && err != nil:
				t.Fatalf("step %d: %s from %s refused (%v); the model allows it", i, op, before, err)
			case !ok && !skygate.IsCode(err, skygate.CodeInvalidBookingStatus):
				t.Fatalf("step %d: %s from %s = %v, want InvalidBookingStatus", i, op, before, err)
			case ok && string(got.Status) != m.status:
				t.Fatalf("step %d: %s from %s gave %s, model %s", i, op, before, got.Status, m.status)
			}
		}
		final, err := b.svc.Get(ctx, b.account, id)
		if err != nil {
			t.Fatal(err)
		}
		var hist []string
		for _, h := range final.StatusHistory {
			hist = append(hist, string(h.Status))
		}
		if string(final.Status) != m.status || !slices.Equal(hist, m.history) {
			t.Fatalf("booking %s %v, model %s %v (ops %v)", final.Status, hist, m.status, m.history, ops)
		}
		if (final.Pass != nil) != m.issued {
			t.Fatalf("pass %v, model issued=%v", final.Pass != nil, m.issued)
		}
		got, last := bookingEvents(t, b.store, seen, b.account, id)
		seen = last
		if !slices.Equal(got, m.events) {
			t.Fatalf("events %v, model %v (ops %v)", got, m.events, ops)
		}
	})
}

// bookingEvents lists the outbox events of one booking as the model writes them.
// It reads the events after seq and returns the last sequence number seen.
func bookingEvents(t *testing.T, s skygate.Store, seq int64, account, bookingID string) ([]string, int64) {
	t.Helper()
	events, err := s.EventsAfter(context.Background(), seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range events {
		seq = max(seq, e.Seq)
		var d struct {
			BookingID      string  `json:"booking_id"`
			Status         string  `json:"status"`
			PreviousStatus *string `json:"previous_status"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.BookingID != bookingID {
			continue
		}
		if e.AccountID != account {
			t.Fatalf("event %s of booking %s has account %s", e.ID, bookingID, e.AccountID)
		}
		prev := ""
		if d.PreviousStatus != nil {
			prev = *d.PreviousStatus
		}
		kind := map[string]string{skygate.EventBookingStatusChanged: "booking", skygate.EventPassStatusChanged: "pass"}[e.Type]
		if kind == "" {
			t.Fatalf("unexpected event type %s", e.Type)
		}
		out = append(out, fmt.Sprintf("%s:%s>%s", kind, prev, d.Status))
	}
	return out, seq
}
