package skygate

import (
	"encoding/json"
	"fmt"
	"time"
)

// APIVersion is the version of every event's envelope and data that this release
// writes, a date. Additive changes (a new event type, a new field in an object that is
// not closed) keep it; a breaking change of a payload (a field removed, renamed or
// retyped, a new value of a closed enum) takes a new date, and events keep the version
// they were written with.
const APIVersion = "2026-12-01"

// Event types delivered to webhook subscriptions (CONTRACT §5).
const (
	EventBookingStatusChanged = "booking.status.changed"
	EventPassStatusChanged    = "pass.status.changed"
)

// Event is one notification in the outbox. It is written in the transaction that
// caused it and later delivered by the webhook dispatcher. Its JSON form is the webhook
// body (the envelope) {"id","type","api_version","created_at","account_id","livemode",
// "data"}; ID is also the webhook-id receivers dedupe by. APIVersion is the version the
// data was written in (see the constant). Livemode is false for an event about an
// object of a sandbox application or of a sandbox deployment, or caused by one; it is
// recorded on the object when it is created, so that events written later by
// background work carry it too. Seq is the event's position in the outbox's feed
// (BookingStore.EventsAfter), assigned by the store; positions become visible in
// increasing order. It is set on the events a store returns, not on the ones handed to
// it to write, and it is 0 on an event that has no position yet: a store whose writers
// commit concurrently (PostgreSQL) assigns positions after the commit, when
// EventsAfter reads the feed.
type Event struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	APIVersion string          `json:"api_version"`
	CreatedAt  time.Time       `json:"created_at"`
	AccountID  string          `json:"account_id"`
	Livemode   bool            `json:"livemode"`
	Data       json.RawMessage `json:"data"`
	Seq        int64           `json:"-"`

	// OrderingKey names the object the event is about (see BookingOrderingKey and
	// ESIMOrderingKey); empty for an event that is about no object (webhook.test). The
	// deliveries of one key to one subscription are sent in the order the events were
	// written (WebhookStore.ClaimWebhookDeliveries). The constructors set it.
	OrderingKey string `json:"-"`
}

// BookingOrderingKey is the ordering key of a booking's events (booking.status.changed
// and pass.status.changed). Writers of one booking are serialised by its row lock, so
// the order in which its events are written is the order of its transitions.
func BookingOrderingKey(bookingID string) string { return "booking:" + bookingID }

// BookingStatusChanged is the data of a booking.status.changed event. Booking is the
// booking as it is after the change, its passengers with their names only: personal
// data never enters the outbox or a webhook (partners read it with the booking).
// PreviousStatus is null when the booking has just been created (Pending).
type BookingStatusChanged struct {
	BookingID      string         `json:"booking_id"`
	Status         BookingStatus  `json:"status"`
	PreviousStatus *BookingStatus `json:"previous_status"`
	Booking        *Booking       `json:"booking"`
}

// PassStatusChanged is the data of a pass.status.changed event. PreviousStatus is null
// when the pass has just been issued (Active).
type PassStatusChanged struct {
	BookingID      string      `json:"booking_id"`
	Status         PassStatus  `json:"status"`
	PreviousStatus *PassStatus `json:"previous_status"`
}

// NewEvent returns an event of the account in APIVersion with a new id, created at now,
// whose data is the JSON encoding of data. livemode is the Livemode of the object the
// event is about, or of the request that caused it when it is about none.
func NewEvent(accountID, typ string, livemode bool, data any, now time.Time) (*Event, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", typ, err)
	}
	return &Event{ID: NewID(), Type: typ, APIVersion: APIVersion, CreatedAt: now, AccountID: accountID,
		Livemode: livemode, Data: b}, nil
}

// BookingEvents returns the events of a transition from before to after at now, all
// with the booking's ordering key: booking.status.changed when the status changed, its booking with the passengers'
// names only, and pass.status.changed when the pass status changed (issued as Active,
// then Used, Voided or Expired). A nil before is the creation of after (SPEC §3: none →
// Pending). The events carry after's Livemode.
func BookingEvents(before, after *Booking, now time.Time) ([]*Event, error) {
	var events []*Event
	if before == nil {
		before = &Booking{}
	}
	if before.Status != after.Status {
		snapshot := *after
		snapshot.Passengers = PassengerNames(after.Passengers)
		data := BookingStatusChanged{BookingID: after.ID, Status: after.Status, Booking: &snapshot}
		if before.Status != "" {
			data.PreviousStatus = &before.Status
		}
		e, err := NewEvent(after.AccountID, EventBookingStatusChanged, after.Livemode, data, now)
		if err != nil {
			return nil, err
		}
		e.OrderingKey = BookingOrderingKey(after.ID)
		events = append(events, e)
	}
	prev, hadPass := before.PassStatus()
	next, hasPass := after.PassStatus()
	if hasPass && (!hadPass || prev != next) {
		data := PassStatusChanged{BookingID: after.ID, Status: next}
		if hadPass {
			data.PreviousStatus = &prev
		}
		e, err := NewEvent(after.AccountID, EventPassStatusChanged, after.Livemode, data, now)
		if err != nil {
			return nil, err
		}
		e.OrderingKey = BookingOrderingKey(after.ID)
		events = append(events, e)
	}
	return events, nil
}
