package skygate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestTransitionTable checks every status × trigger pair against SPEC §3.
func TestTransitionTable(t *testing.T) {
	t.Parallel()
	const no = skygate.BookingStatus("")
	type row = map[skygate.Trigger]skygate.BookingStatus
	want := map[skygate.BookingStatus]row{
		skygate.BookingPending:   {"issue": "Issued", "confirm": no, "use": no, "expire": no, "cancel": "Canceled"},
		skygate.BookingIssued:    {"issue": no, "confirm": "Confirmed", "use": no, "expire": "Expired", "cancel": "Canceled"},
		skygate.BookingConfirmed: {"issue": no, "confirm": no, "use": "Completed", "expire": no, "cancel": "Canceled"},
		skygate.BookingCompleted: {"issue": no, "confirm": no, "use": no, "expire": no, "cancel": "Canceled"},
		skygate.BookingExpired:   {"issue": no, "confirm": no, "use": no, "expire": no, "cancel": "Canceled"},
		skygate.BookingCanceled:  {"issue": no, "confirm": no, "use": no, "expire": no, "cancel": no},
	}
	if len(want) != len(skygate.BookingStatuses) {
		t.Fatalf("the table covers %d statuses, want %d", len(want), len(skygate.BookingStatuses))
	}
	for _, from := range skygate.BookingStatuses {
		for _, tr := range skygate.Triggers {
			t.Run(string(from)+"/"+string(tr), func(t *testing.T) {
				t.Parallel()
				to, ok := want[from][tr]
				if !ok {
					t.Fatalf("the test table lacks %s/%s", from, tr)
				}
				got, err := skygate.Transition(from, tr)
				if to == no {
					if !skygate.IsCode(err, skygate.CodeInvalidBookingStatus) || got != "" {
						t.Fatalf("Transition = %q, %v; want InvalidBookingStatus", got, err)
					}
					if !strings.Contains(skygate.ErrorMessage(err), string(from)) {
						t.Fatalf("message %q does not name the status %s", skygate.ErrorMessage(err), from)
					}
					return
				}
				if err != nil || got != to {
					t.Fatalf("Transition = %q, %v; want %q", got, err, to)
				}
			})
		}
	}
}

func TestTransitionRejectsUnknownValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from skygate.BookingStatus
		t    skygate.Trigger
		code string
	}{
		{skygate.BookingPending, "Issue", skygate.CodeValidation},
		{skygate.BookingPending, "", skygate.CodeValidation},
		{"pending", skygate.TriggerCancel, skygate.CodeInvalidBookingStatus},
		{"", skygate.TriggerIssue, skygate.CodeInvalidBookingStatus},
	}
	for _, tt := range tests {
		if _, err := skygate.Transition(tt.from, tt.t); !skygate.IsCode(err, tt.code) {
			t.Errorf("Transition(%q, %q) = %v, want %s", tt.from, tt.t, err, tt.code)
		}
	}
}

func TestPassStatusOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status skygate.BookingStatus
		issued bool
		want   skygate.PassStatus
		ok     bool
	}{
		{skygate.BookingPending, false, "", false},
		{skygate.BookingCanceled, false, "", false},
		{skygate.BookingIssued, true, skygate.PassActive, true},
		{skygate.BookingConfirmed, true, skygate.PassActive, true},
		{skygate.BookingCompleted, true, skygate.PassUsed, true},
		{skygate.BookingExpired, true, skygate.PassExpired, true},
		{skygate.BookingCanceled, true, skygate.PassVoided, true},
	}
	for _, tt := range tests {
		got, ok := skygate.PassStatusOf(tt.status, tt.issued)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PassStatusOf(%s, %v) = %q, %v; want %q, %v", tt.status, tt.issued, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBookingPassNotReady(t *testing.T) {
	t.Parallel()
	for _, s := range []skygate.BookingStatus{skygate.BookingPending, skygate.BookingCanceled} {
		b := &skygate.Booking{ID: skygate.NewID(), Status: s}
		if _, err := b.BookingPass(); !skygate.IsCode(err, skygate.CodePassNotReady) {
			t.Errorf("%s: BookingPass error = %v, want PassNotReady", s, err)
		}
	}
}

func TestBookingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	b := &skygate.Booking{
		ID: "b1", Status: skygate.BookingPending, FastTrackID: "f1", ServiceDate: "2025-06-02",
		Flight:     skygate.Flight{Number: "HY601", Direction: skygate.FlightDeparture},
		Passengers: []skygate.Passenger{{FirstName: "Ann", LastName: "Lee"}},
		CreatedAt:  at, UpdatedAt: at,
		StatusHistory: []skygate.StatusChange{{Status: skygate.BookingPending, At: at}},
		AccountID:     "secret-account", ClientID: "secret-client",
		Pass: &skygate.Pass{Code: "SECRETCODE"},
	}
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"b1","status":"Pending","fast_track_id":"f1","service_date":"2025-06-02",` +
		`"flight":{"number":"HY601","direction":"departure"},` +
		`"passengers":[{"first_name":"Ann","last_name":"Lee"}],"partner_reference":"",` +
		`"confirm_before":null,"created_at":"2025-06-01T10:00:00Z","updated_at":"2025-06-01T10:00:00Z",` +
		`"status_history":[{"status":"Pending","at":"2025-06-01T10:00:00Z"}],"personal_data_removed_at":null}`
	if string(got) != want {
		t.Fatalf("JSON\n got  %s\n want %s", got, want)
	}
}

func TestClone(t *testing.T) {
	t.Parallel()
	cb := time.Now()
	removed := cb.Add(time.Minute)
	b := &skygate.Booking{Passengers: []skygate.Passenger{{FirstName: "A"}}, ConfirmBefore: &cb,
		StatusHistory: []skygate.StatusChange{{Status: skygate.BookingPending}}, Pass: &skygate.Pass{Code: "X"},
		PersonalDataRemovedAt: &removed}
	c := b.Clone()
	c.Passengers[0].FirstName = "B"
	c.StatusHistory[0].Status = skygate.BookingIssued
	*c.ConfirmBefore = cb.Add(time.Hour)
	c.Pass.Code = "Y"
	*c.PersonalDataRemovedAt = cb
	if b.Passengers[0].FirstName != "A" || b.StatusHistory[0].Status != skygate.BookingPending ||
		!b.ConfirmBefore.Equal(cb) || b.Pass.Code != "X" || !b.PersonalDataRemovedAt.Equal(removed) {
		t.Fatalf("Clone shares memory with the original: %+v", b)
	}
}

// FuzzTransition checks Transition against a model written independently as rules.
func FuzzTransition(f *testing.F) {
	for _, s := range skygate.BookingStatuses {
		for _, tr := range skygate.Triggers {
			f.Add(string(s), string(tr))
		}
	}
	f.Fuzz(func(t *testing.T, from, trigger string) {
		got, err := skygate.Transition(skygate.BookingStatus(from), skygate.Trigger(trigger))
		want, code := transitionModel(from, trigger)
		if got != want || skygate.ErrorCode(err) != code {
			t.Fatalf("Transition(%q, %q) = %q, %v; model says %q, %q", from, trigger, got, err, want, code)
		}
		if code == skygate.CodeInvalidBookingStatus && skygate.BookingStatus(from).IsValid() &&
			!strings.Contains(skygate.ErrorMessage(err), from) {
			t.Fatalf("message %q does not name the status %q", skygate.ErrorMessage(err), from)
		}
	})
}

// transitionModel states the machine as rules: a known trigger is required, then a
// known status; cancel ends everything not already canceled; each other trigger has
// exactly one source status.
func transitionModel(from, trigger string) (skygate.BookingStatus, string) {
	source := map[string]string{"issue": "Pending", "confirm": "Issued", "expire": "Issued", "use": "Confirmed", "cancel": ""}
	target := map[string]string{"issue": "Issued", "confirm": "Confirmed", "expire": "Expired", "use": "Completed", "cancel": "Canceled"}
	src, known := source[trigger]
	switch {
	case !known:
		return "", skygate.CodeValidation
	case !strings.Contains(" Pending Issued Confirmed Completed Expired Canceled ", " "+from+" ") || from == "":
		return "", skygate.CodeInvalidBookingStatus
	case trigger == "cancel" && from != "Canceled", from == src:
		return skygate.BookingStatus(target[trigger]), ""
	default:
		return "", skygate.CodeInvalidBookingStatus
	}
}

// ExampleTransition shows the state machine answering a partner's repeated confirm.
func ExampleTransition() {
	s, _ := skygate.Transition(skygate.BookingIssued, skygate.TriggerConfirm)
	fmt.Println(s)
	_, err := skygate.Transition(s, skygate.TriggerConfirm)
	fmt.Println(skygate.ErrorCode(err), "-", skygate.ErrorMessage(err))
	s, _ = skygate.Transition(s, skygate.TriggerCancel)
	fmt.Println(s)
	// Output:
	// Confirmed
	// InvalidBookingStatus - the booking is Confirmed; confirm is not allowed in that status
	// Canceled
}
