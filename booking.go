package skygate

// This file holds fast-track bookings: their statuses and state machine (SPEC §3,
// CONTRACT §4), the booking and pass records, and the BookingStore contract.

import (
	"context"
	"slices"
	"time"
)

// BookingStatus is where a booking is in its life. New values are not expected; the
// six below are the whole machine.
type BookingStatus string

const (
	// BookingPending: accepted (202), the pass is not generated yet.
	BookingPending BookingStatus = "Pending"
	// BookingIssued: the pass exists; the partner must confirm before ConfirmBefore.
	BookingIssued BookingStatus = "Issued"
	// BookingConfirmed: the partner confirmed; the pass may be used.
	BookingConfirmed BookingStatus = "Confirmed"
	// BookingCompleted: the pass was used at the airport.
	BookingCompleted BookingStatus = "Completed"
	// BookingExpired: Issued and not confirmed in time.
	BookingExpired BookingStatus = "Expired"
	// BookingCanceled: canceled by the partner; final.
	BookingCanceled BookingStatus = "Canceled"
)

// BookingStatuses lists every BookingStatus in the order of a booking's life.
var BookingStatuses = []BookingStatus{
	BookingPending, BookingIssued, BookingConfirmed, BookingCompleted, BookingExpired, BookingCanceled,
}

// IsValid reports whether s is one of BookingStatuses.
func (s BookingStatus) IsValid() bool { return slices.Contains(BookingStatuses, s) }

// Trigger is what moves a booking: a partner operation (confirm, cancel), the service
// (issue, expire) or the airport (use).
type Trigger string

const (
	TriggerIssue   Trigger = "issue"
	TriggerConfirm Trigger = "confirm"
	TriggerUse     Trigger = "use"
	TriggerExpire  Trigger = "expire"
	TriggerCancel  Trigger = "cancel"
)

// Triggers lists every Trigger.
var Triggers = []Trigger{TriggerIssue, TriggerConfirm, TriggerUse, TriggerExpire, TriggerCancel}

// transitions is SPEC §3 without cancel, which Transition handles for every status.
var transitions = map[BookingStatus]map[Trigger]BookingStatus{
	BookingPending:   {TriggerIssue: BookingIssued},
	BookingIssued:    {TriggerConfirm: BookingConfirmed, TriggerExpire: BookingExpired},
	BookingConfirmed: {TriggerUse: BookingCompleted},
}

// Transition returns the status that trigger t moves a booking in status from to:
//
//	Pending   --issue-->   Issued
//	Issued    --confirm--> Confirmed
//	Issued    --expire-->  Expired
//	Confirmed --use-->     Completed
//	any but Canceled --cancel--> Canceled
//
// Every other pair, including a repeated confirm or cancel, is CodeInvalidBookingStatus
// with a message naming the current status. A trigger that is not one of Triggers is
// CodeValidation; a status that is not one of BookingStatuses is CodeInvalidBookingStatus.
func Transition(from BookingStatus, t Trigger) (BookingStatus, error) {
	if !slices.Contains(Triggers, t) {
		return "", Errorf(CodeValidation, "unknown booking trigger %q", string(t))
	}
	if !from.IsValid() {
		return "", Errorf(CodeInvalidBookingStatus, "the booking has an unknown status %q", string(from))
	}
	if t == TriggerCancel && from != BookingCanceled {
		return BookingCanceled, nil
	}
	if to, ok := transitions[from][t]; ok {
		return to, nil
	}
	e := Errorf(CodeInvalidBookingStatus, "the booking is %s; %s is not allowed in that status", from, t)
	e.BookingStatus = from
	return "", e
}

// PassStatus is the status of a booking's pass; it is derived from the booking.
type PassStatus string

const (
	// PassActive: the booking is Issued or Confirmed.
	PassActive PassStatus = "Active"
	// PassUsed: the booking is Completed.
	PassUsed PassStatus = "Used"
	// PassVoided: the booking was canceled after its pass was issued.
	PassVoided PassStatus = "Voided"
	// PassExpired: the booking expired unconfirmed.
	PassExpired PassStatus = "Expired"
)

// PassStatusOf returns the status of the pass of a booking in status s whose pass was
// issued (issued) or not. ok is false when the booking has no pass: it is Pending, or
// it was canceled while Pending.
func PassStatusOf(s BookingStatus, issued bool) (status PassStatus, ok bool) {
	if !issued {
		return "", false
	}
	status, ok = passStatuses[s]
	return status, ok
}

// passStatuses maps the status of a booking whose pass was issued to the pass's.
var passStatuses = map[BookingStatus]PassStatus{
	BookingIssued: PassActive, BookingConfirmed: PassActive, BookingCompleted: PassUsed,
	BookingCanceled: PassVoided, BookingExpired: PassExpired,
}

// FlightDirection says whether the fast-track serves a departing or arriving flight.
type FlightDirection string

const (
	FlightDeparture FlightDirection = "departure"
	FlightArrival   FlightDirection = "arrival"
)

// Flight is the passengers' flight. Number is an IATA flight designator such as
// "HY601" or "TK1234A"; it is "" when the fast-track does not require it and the
// partner did not send it.
type Flight struct {
	Number    string          `json:"number"`
	Direction FlightDirection `json:"direction"`
	// ScheduledAt is the flight's scheduled time at the hub, local to the hub's time
	// zone, "YYYY-MM-DDTHH:MM"; its date is the booking's ServiceDate. It is "" when
	// the partner did not send it (allowed only for an account without a price list).
	ScheduledAt string `json:"scheduled_at,omitempty"`
}

// Passenger is one traveller of a booking. FirstName and LastName are always present
// ("" when the fast-track does not require names and none were sent); the other fields
// are omitted when not sent. DateOfBirth is YYYY-MM-DD, Nationality ISO 3166-1
// alpha-2, Phone E.164. Every field but the names is personal data (personaldata.go):
// sealed at rest, kept out of events, removed after the retention. A new field goes
// into the tests' fullBooking too, whose JSON form TestBookingJSONForms pins.
type Passenger struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// Type is the fare type (adult, child, infant); not personal data. A booking
	// validated by this release always has it; one stored before it has "".
	Type           PassengerType `json:"type,omitempty"`
	DateOfBirth    string        `json:"date_of_birth,omitempty"`
	PassportNumber string        `json:"passport_number,omitempty"`
	Nationality    string        `json:"nationality,omitempty"`
	Email          string        `json:"email,omitempty"`
	Phone          string        `json:"phone,omitempty"`
}

// StatusChange is one entry of a booking's history: the status it entered and when.
type StatusChange struct {
	Status BookingStatus `json:"status"`
	At     time.Time     `json:"at"`
}

// Pass is the stored pass of a booking, generated when it is issued. Payload is what
// the QR code encodes ("SKYGATE:<booking id>:<code>"); the pass is valid from
// ValidFrom until ValidUntil.
type Pass struct {
	Code       string
	Payload    string
	ValidFrom  time.Time
	ValidUntil time.Time
}

// Booking is a fast-track booking. The JSON form is the partner-facing resource
// (CONTRACT §4); AccountID, ClientID and Pass are internal. ServiceDate is the
// calendar day of the service at the airport, YYYY-MM-DD. ConfirmBefore is set when
// the booking is issued (null before). StatusHistory lists every status the booking
// entered, oldest first, starting with Pending at CreatedAt. PersonalDataRemovedAt is
// when the passengers' personal data was removed after the retention (null before);
// the passengers keep their names.
type Booking struct {
	ID               string         `json:"id"`
	Status           BookingStatus  `json:"status"`
	FastTrackID      string         `json:"fast_track_id"`
	ServiceDate      string         `json:"service_date"`
	Flight           Flight         `json:"flight"`
	Passengers       []Passenger    `json:"passengers"`
	PartnerReference string         `json:"partner_reference"`
	ConfirmBefore    *time.Time     `json:"confirm_before"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
	StatusHistory    []StatusChange `json:"status_history"`
	// PersonalDataRemovedAt is written by BookingStore.ErasePassengerData only.
	PersonalDataRemovedAt *time.Time `json:"personal_data_removed_at"`
	// Price is what the booking costs the account, from its price list (or the quote
	// it named) at create; nil for an account without a price list (commerce.go).
	// Price, CancellationPolicy and Refund are left out of the JSON form when unset,
	// so a booking without commerce encodes as it did before they existed (a replay
	// renders its first answer byte for byte).
	Price *Money `json:"price,omitempty"`
	// CancellationPolicy is the fast-track's policy rendered for this booking's
	// flight and price at create; empty when Price is nil.
	CancellationPolicy []CancellationTerm `json:"cancellation_policy,omitempty"`
	// Refund is what a cancellation gave back: set by the cancel transition of a
	// priced booking (the whole price before confirm), nil otherwise.
	Refund *Money `json:"refund,omitempty"`
	// QuoteID is the quote whose price the booking locked, "" for none.
	QuoteID string `json:"quote_id,omitempty"`

	// AccountID is the tenant; every store method selects by it.
	AccountID string `json:"-"`
	// ClientID is the application that created the booking.
	ClientID string `json:"-"`
	// Livemode is false when a sandbox application or deployment created the booking
	// (see Event); every event of the booking carries it.
	Livemode bool `json:"-"`
	// Pass is nil until the booking is issued, and stays after it is canceled.
	Pass *Pass `json:"-"`
	// Slot is the capacity slot the booking holds places in; nil when it names no
	// scheduled time.
	Slot *BookingSlot `json:"-"`
}

// Clone returns a deep copy of b.
func (b *Booking) Clone() *Booking {
	c := *b
	c.Passengers = slices.Clone(b.Passengers)
	c.StatusHistory = slices.Clone(b.StatusHistory)
	c.ConfirmBefore, c.PersonalDataRemovedAt, c.Pass = clonePtr(b.ConfirmBefore), clonePtr(b.PersonalDataRemovedAt), clonePtr(b.Pass)
	c.Price, c.Refund, c.Slot = clonePtr(b.Price), clonePtr(b.Refund), clonePtr(b.Slot)
	c.CancellationPolicy = slices.Clone(b.CancellationPolicy)
	return &c
}

// PassStatus returns the status of b's pass; ok is false when b has none.
func (b *Booking) PassStatus() (status PassStatus, ok bool) {
	return PassStatusOf(b.Status, b.Pass != nil)
}

// BarcodeQR is the only barcode format of a pass.
const BarcodeQR = "QR"

// Barcode is what a scanner reads from a pass.
type Barcode struct {
	Format  string `json:"format"`
	Payload string `json:"payload"`
}

// BookingPass is the partner-facing pass of a booking (GET …/{bookingID}/pass).
// FastTrack is the catalog item in the response language; the booking service leaves
// it nil and the HTTP layer fills it in.
type BookingPass struct {
	BookingID  string      `json:"booking_id"`
	Status     PassStatus  `json:"status"`
	Code       string      `json:"code"`
	Barcode    Barcode     `json:"barcode"`
	ValidFrom  time.Time   `json:"valid_from"`
	ValidUntil time.Time   `json:"valid_until"`
	Passengers []Passenger `json:"passengers"`
	FastTrack  *FastTrack  `json:"fast_track"`
}

// BookingPass returns b's pass in the partner-facing form, or CodePassNotReady when b
// has no pass (it is Pending, or was canceled while Pending).
func (b *Booking) BookingPass() (*BookingPass, error) {
	status, ok := b.PassStatus()
	if !ok {
		if b.Status == BookingCanceled {
			return nil, Errorf(CodePassNotReady, "the booking was canceled before its pass was issued")
		}
		return nil, Errorf(CodePassNotReady, "the pass is not issued yet; the booking is %s", b.Status)
	}
	return &BookingPass{
		BookingID:  b.ID,
		Status:     status,
		Code:       b.Pass.Code,
		Barcode:    Barcode{Format: BarcodeQR, Payload: b.Pass.Payload},
		ValidFrom:  b.Pass.ValidFrom,
		ValidUntil: b.Pass.ValidUntil,
		Passengers: slices.Clone(b.Passengers),
	}, nil
}

// OperationCreateBooking is the IdempotencyRecord.Operation of create-booking.
const OperationCreateBooking = "booking.create"

// IdempotencyRecord remembers the answer to a request made with an Idempotency-Key
// (internal/idempotency). Keys are scoped to the account and the operation.
// Fingerprint identifies the request (a hash of its canonical form); ResourceID is the
// id of what the request created and Body the stored answer, that resource's JSON form
// as it was created. StatusCode is the HTTP status that earlier releases stored beside
// their answer and replay; this release writes it for them and never reads it, since
// the route knows its status. A record stops counting at ExpiresAt: after it the key
// may be reused.
type IdempotencyRecord struct {
	AccountID   string
	Operation   string
	Key         string
	Fingerprint []byte
	StatusCode  int
	ResourceID  string
	Body        []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// BookingApply is called by the store inside a transition's transaction. before is the
// booking as read; after is a copy with the new Status, UpdatedAt set to the
// transition time and the new StatusHistory entry appended. apply may set
// after.ConfirmBefore and after.Pass (the only other fields written) and returns the
// events to insert in the same transaction. apply may be called more than once for one
// transition (after a concurrent change the store re-reads and re-evaluates), so it must
// not have effects outside its return values. An error from apply aborts the transition
// and is returned as is.
type BookingApply func(before, after *Booking) ([]*Event, error)

// BookingStore keeps bookings, their idempotency records and the event outbox. Every
// tenant method takes the account id and treats another account's booking or event as
// CodeNotFound. Methods whose name ends in Admin ignore the account and are only for
// employees' routes and workers.
//
// What rests in clear is only what the service may show without the tenant: a store
// keeps its passengers' personal data (Passenger, all but the names) and the
// Fingerprint and Body of every IdempotencyRecord sealed with the Sealer it was opened
// with, each bound to its row, and returns them opened: reads give back what was
// written, byte for byte.
type BookingStore interface {
	// CreateBooking writes rec, b and events in one transaction. When the account
	// already holds an unexpired record for rec's operation and key (written earlier or
	// by a concurrent call, whose commit it waits for), nothing is written and the
	// stored record is returned; the caller compares fingerprints. A record of that key
	// that expired at or before rec.CreatedAt is replaced. It returns (nil, nil) when it
	// wrote. A booking id already taken is CodeConflict; an unknown account CodeNotFound.
	// Times of b, rec and events are normalised to the stored precision.
	CreateBooking(ctx context.Context, rec *IdempotencyRecord, b *Booking, events []*Event) (replay *IdempotencyRecord, err error)
	// IdempotencyRecord returns the account's record of operation and key, or
	// CodeNotFound when there is none or it expired at or before now.
	IdempotencyRecord(ctx context.Context, accountID, operation, key string, now time.Time) (*IdempotencyRecord, error)
	// PurgeIdempotencyRecords deletes records that expired before before and returns
	// how many.
	PurgeIdempotencyRecords(ctx context.Context, before time.Time) (int, error)
	// ErasePassengerData removes the personal data of the passengers of up to limit
	// bookings of every account (no limit when limit <= 0) whose ServiceDate is before
	// serviceDateBefore (YYYY-MM-DD, see PassengerDataCutoff) and that still hold it,
	// and sets their PersonalDataRemovedAt to now. The names, the status, the history
	// and the pass stay; no event is written. It returns how many bookings it changed.
	// Concurrent callers (replicas) neither fail nor wait for each other, and each
	// booking is changed once. Maintenance for the booking worker.
	ErasePassengerData(ctx context.Context, serviceDateBefore string, now time.Time, limit int) (int, error)
	// SealLegacyData seals what rows written in clear hold (bookings' personal data and
	// idempotency records of a release that did not seal them, before its migration or
	// from a replica still running it): up to limit rows of each table (no limit when
	// limit <= 0). It returns how many rows it sealed. Reads return such rows as they
	// were written before and after; concurrent callers seal each row once.
	// Maintenance for the booking worker.
	SealLegacyData(ctx context.Context, limit int) (int, error)

	// Booking returns the account's booking or CodeNotFound.
	Booking(ctx context.Context, accountID, bookingID string) (*Booking, error)
	// ListBookings returns a page of the account's bookings, newest first, and the
	// total. A non-empty status keeps only bookings in that status.
	ListBookings(ctx context.Context, accountID string, status BookingStatus, p Page) ([]*Booking, int, error)
	// TransitionBooking applies trigger t at now to the account's booking in one
	// transaction: it reads the booking, computes the next status with Transition
	// (whose error it returns), calls apply (which may be nil), and writes the booking
	// only if its status is still the one read — after a concurrent change it re-reads
	// and re-evaluates, so of two conflicting transitions exactly one wins and the other
	// gets the error Transition gives for the new status. The events apply returns are
	// inserted in the same transaction. It returns the booking as written.
	TransitionBooking(ctx context.Context, accountID, bookingID string, t Trigger, now time.Time, apply BookingApply) (*Booking, error)

	// BookingAdmin returns any account's booking or CodeNotFound. Admin only.
	BookingAdmin(ctx context.Context, bookingID string) (*Booking, error)
	// TransitionBookingAdmin is TransitionBooking for any account's booking, committing
	// the audit record (required) with the transition. Admin only.
	TransitionBookingAdmin(ctx context.Context, bookingID string, t Trigger, now time.Time, apply BookingApply, audit *AuditEvent) (*Booking, error)
	// ClaimBookings applies trigger t at now to due bookings in status from, several
	// per transaction, oldest due first, until limit bookings were moved (no limit
	// when limit <= 0) or none is due, and returns how many were moved (committed). A Pending
	// booking is due when CreatedAt is at or before now, an Issued one when
	// ConfirmBefore is before now; other statuses are CodeValidation. Concurrent
	// callers, in this process or another replica, never move one booking twice: on
	// PostgreSQL each claim locks its row and skips rows others hold. apply is as for
	// TransitionBooking; an error from it stops the call. Nothing is kept outside the
	// database, so after a crash the next call resumes the work.
	ClaimBookings(ctx context.Context, from BookingStatus, t Trigger, now time.Time, limit int, apply BookingApply) (int, error)

	// Event returns the account's event or CodeNotFound.
	Event(ctx context.Context, accountID, eventID string) (*Event, error)
	// EventsAfter returns at most limit events of every account with Seq greater than
	// afterSeq, in Seq order. An event is returned only once no event with a smaller
	// Seq can still appear, so a reader that remembers the last Seq it saw misses none.
	// It first gives every committed event without a position one (see Event.Seq), so
	// it may write; the writers of events never wait for it or for each other.
	EventsAfter(ctx context.Context, afterSeq int64, limit int) ([]*Event, error)
}
