package booking

import (
	"context"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/qr"
)

// DefaultConfirmWindow is how long an Issued booking waits for confirmation unless
// configured (SKYGATE_CONFIRM_WINDOW).
const DefaultConfirmWindow = 30 * time.Minute

// FastTracks tells the service about the catalog's fast-tracks. The catalog
// implements it; it must be safe for concurrent use.
type FastTracks interface {
	// FastTrackInfo returns the fast-track's required_booking_info values (the
	// skygate.BookingInfo strings) and whether it is active; ok is false for an
	// unknown id.
	FastTrackInfo(id string) (requiredBookingInfo []string, active bool, ok bool)
	// FastTrackZone returns the time zone of the fast-track's hub, in which
	// service_date is a calendar day. When ok is false, service dates are UTC days.
	FastTrackZone(id string) (loc *time.Location, ok bool)
	// FastTrackNotice returns the fast-track's minimum notice (the catalog's
	// policy.booking_before_hours): a booking must be made at least that long before
	// its service day starts at the airport (00:00 in the hub's zone). When ok is
	// false, a booking may be made up to the service day.
	FastTrackNotice(id string) (notice time.Duration, ok bool)
	// FastTrackCapacity returns the fast-track's capacity per one-hour slot as the
	// catalog gives it (the store applies an admin's override); ok is false for an
	// unknown id.
	FastTrackCapacity(id string) (capacity int, ok bool)
	// FastTrackOpenHours returns the fast-track's opening intervals on a weekday at
	// the hub, in minutes after local midnight ([start, end), ascending; none when it
	// is closed that day); ok is false for an unknown id.
	FastTrackOpenHours(id string, day time.Weekday) (intervals [][2]int, ok bool)
	// FastTrackCancellation returns the fast-track's cancellation policy, largest
	// HoursBefore first; ok is false for an unknown id.
	FastTrackCancellation(id string) (rules []skygate.CancellationRule, ok bool)
}

// Slots is what Availability reads: the places bookings hold and the capacities
// admins set (skygate.CapacityStore's FastTrackCapacity).
type Slots interface {
	skygate.SlotStore
	FastTrackCapacity(ctx context.Context, fastTrackID string) (capacity int, ok bool, err error)
}

// Config is what a Service needs. Store and FastTracks are required.
type Config struct {
	Store      skygate.BookingStore
	FastTracks FastTracks
	// Slots reads the capacity slots and the admins' capacities for Availability;
	// Store when nil and Store implements it.
	Slots Slots
	// Clock defaults to time.Now.
	Clock skygate.Clock
	// ConfirmWindow defaults to DefaultConfirmWindow.
	ConfirmWindow time.Duration
	// PassengerDataRetention is how long after the end of its service date (a UTC day)
	// a booking keeps its passengers' personal data before the worker removes it;
	// skygate.DefaultPassengerDataRetention (90 days) when zero.
	PassengerDataRetention time.Duration
	// Prices are the accounts' price lists; nil prices nothing (every account books
	// as one without a price list does).
	Prices skygate.PriceStore
	// Quotes keeps quotes; nil refuses quote requests and every quote_id.
	Quotes skygate.QuoteStore
}

// Service is the booking logic. It is safe for concurrent use.
type Service struct {
	store      skygate.BookingStore
	fastTracks FastTracks
	slots      Slots
	now        skygate.Clock
	window     time.Duration
	retention  time.Duration
	prices     skygate.PriceStore
	quotes     skygate.QuoteStore
	// wake tells the workers of the service that a new booking was stored, so that
	// they issue it at once (Worker.Run).
	wake chan struct{}
}

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, fastTracks: cfg.FastTracks, slots: cfg.Slots, now: cfg.Clock, window: cfg.ConfirmWindow,
		retention: cfg.PassengerDataRetention, prices: cfg.Prices, quotes: cfg.Quotes, wake: make(chan struct{}, 1)}
	if s.slots == nil {
		s.slots, _ = cfg.Store.(Slots)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.window <= 0 {
		s.window = DefaultConfirmWindow
	}
	if s.retention <= 0 {
		s.retention = skygate.DefaultPassengerDataRetention
	}
	return s
}

// notFound is the error of an unknown booking id, also of another account's.
func notFound() error { return skygate.Errorf(skygate.CodeNotFound, "booking not found") }

// Get returns the account's booking. An id that is not a UUID is CodeNotFound without
// a lookup.
func (s *Service) Get(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	if !skygate.IsID(bookingID) {
		return nil, notFound()
	}
	return s.store.Booking(ctx, accountID, bookingID)
}

// List returns a page of the account's bookings, newest first, and the total. status
// is "" or one of skygate.BookingStatuses (else CodeBadRequest, as for any bad query
// parameter).
func (s *Service) List(ctx context.Context, accountID, status string, p skygate.Page) ([]*skygate.Booking, int, error) {
	st := skygate.BookingStatus(status)
	if status != "" && !st.IsValid() {
		return nil, 0, &skygate.Error{Code: skygate.CodeBadRequest,
			Message: "status must be one of Pending, Issued, Confirmed, Completed, Expired, Canceled",
			Fields:  []skygate.FieldError{{Field: "status", Message: "unknown status"}}}
	}
	return s.store.ListBookings(ctx, accountID, st, p)
}

// Confirm moves the account's Issued booking to Confirmed. Any other status is
// CodeInvalidBookingStatus naming the current status (a repeated confirm included).
func (s *Service) Confirm(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	return s.transition(ctx, accountID, bookingID, skygate.TriggerConfirm)
}

// Cancel moves the account's booking to Canceled from any status but Canceled (a
// repeated cancel is CodeInvalidBookingStatus). A pass that existed becomes Voided. A
// priced booking gets its Refund (skygate.Booking.RefundAt at the cancel); see
// CancelExpecting.
func (s *Service) Cancel(ctx context.Context, accountID, bookingID string) (*skygate.Booking, error) {
	return s.CancelExpecting(ctx, accountID, bookingID, nil)
}

// Pass returns the pass of the account's booking, or CodePassNotReady before the
// booking is issued. FastTrack is left nil for the caller to fill in.
func (s *Service) Pass(ctx context.Context, accountID, bookingID string) (*skygate.BookingPass, error) {
	b, err := s.Get(ctx, accountID, bookingID)
	if err != nil {
		return nil, err
	}
	return b.BookingPass()
}

// PassPNG returns the QR code of the account's booking's pass as a PNG image, or
// CodePassNotReady before the booking is issued.
func (s *Service) PassPNG(ctx context.Context, accountID, bookingID string) ([]byte, error) {
	p, err := s.Pass(ctx, accountID, bookingID)
	if err != nil {
		return nil, err
	}
	return qr.PNG(p.Barcode.Payload)
}

// Simulation events accepted by Simulate.
var simulations = map[string]skygate.Trigger{
	"issue":  skygate.TriggerIssue,
	"use":    skygate.TriggerUse,
	"expire": skygate.TriggerExpire,
}

// Simulate triggers, for a sandbox caller, a transition that the service or the
// airport would otherwise trigger: "issue" (Pending → Issued, as the worker does),
// "use" (Confirmed → Completed) or "expire" (Issued → Expired, without waiting for the
// deadline). The state machine still applies; deciding who may simulate is the
// caller's job. Another event is CodeValidation on the field "event".
func (s *Service) Simulate(ctx context.Context, accountID, bookingID, event string) (*skygate.Booking, error) {
	t, ok := simulations[event]
	if !ok {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "event", Message: "must be one of issue, use, expire"})
	}
	return s.transition(ctx, accountID, bookingID, t)
}

// AdminGet returns any account's booking. Admin only.
func (s *Service) AdminGet(ctx context.Context, bookingID string) (*skygate.Booking, error) {
	if !skygate.IsID(bookingID) {
		return nil, notFound()
	}
	return s.store.BookingAdmin(ctx, bookingID)
}

// Complete records that the pass of any account's Confirmed booking was used
// (Confirmed → Completed), committing the audit record (required) with it. Admin
// only.
func (s *Service) Complete(ctx context.Context, bookingID string, audit *skygate.AuditEvent) (*skygate.Booking, error) {
	if !skygate.IsID(bookingID) {
		return nil, notFound()
	}
	return s.store.TransitionBookingAdmin(ctx, bookingID, skygate.TriggerUse, s.now(), s.apply, audit)
}

func (s *Service) transition(ctx context.Context, accountID, bookingID string, t skygate.Trigger) (*skygate.Booking, error) {
	if !skygate.IsID(bookingID) {
		return nil, notFound()
	}
	return s.store.TransitionBooking(ctx, accountID, bookingID, t, s.now(), s.apply)
}

// apply is the skygate.BookingApply of every transition: on issue it generates the
// pass and sets the confirmation deadline; on cancel it sets the refund of a priced
// booking; it returns the events of the change. It is pure apart from drawing random
// pass codes, so the store may call it again.
func (s *Service) apply(before, after *skygate.Booking) ([]*skygate.Event, error) {
	// Past its deadline an Issued booking is expired in all but the worker's bookkeeping:
	// a late confirm is refused even when the worker has not run yet.
	if after.Status == skygate.BookingConfirmed && before.ConfirmBefore != nil && after.UpdatedAt.After(*before.ConfirmBefore) {
		e := skygate.Errorf(skygate.CodeInvalidBookingStatus,
			"the booking was to be confirmed by %s; it expires", before.ConfirmBefore.UTC().Format(time.RFC3339))
		e.BookingStatus = skygate.BookingExpired
		return nil, e
	}
	if before.Status == skygate.BookingPending && after.Status == skygate.BookingIssued {
		pass, err := newPass(after, s.zone(after.FastTrackID))
		if err != nil {
			return nil, err
		}
		after.Pass, after.ConfirmBefore = pass, new(after.UpdatedAt.Add(s.window))
	}
	if after.Status == skygate.BookingCanceled {
		// The refund as of the transition, which the store moves in its transaction.
		if refund, _, ok := before.RefundAt(after.UpdatedAt); ok {
			after.Refund = &refund
		}
	}
	return skygate.BookingEvents(before, after, after.UpdatedAt)
}

// zone returns the time zone of the fast-track's hub, UTC when unknown.
func (s *Service) zone(fastTrackID string) *time.Location {
	if loc, ok := s.fastTracks.FastTrackZone(fastTrackID); ok && loc != nil {
		return loc
	}
	return time.UTC
}
