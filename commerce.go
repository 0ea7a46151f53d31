package skygate

// This file holds the commercial side of a fast-track booking: passenger fare types,
// the cancellation policy of a fast-track and its rendering for one booking, and the
// capacity slot a booking holds places in.

import (
	"slices"
	"time"
)

// PassengerType is a passenger's fare type. Infants take no place in a slot.
type PassengerType string

const (
	PassengerAdult  PassengerType = "adult"
	PassengerChild  PassengerType = "child"
	PassengerInfant PassengerType = "infant"
)

// PassengerTypes lists every PassengerType, the default first.
var PassengerTypes = []PassengerType{PassengerAdult, PassengerChild, PassengerInfant}

// IsValid reports whether t is one of PassengerTypes.
func (t PassengerType) IsValid() bool { return slices.Contains(PassengerTypes, t) }

// TakesPlace reports whether a passenger of type t takes a place in a slot: every type
// but infant ("" is an adult stored before types existed).
func (t PassengerType) TakesPlace() bool { return t != PassengerInfant }

// Places returns how many places passengers take in a slot.
func Places(passengers []Passenger) int {
	n := 0
	for _, p := range passengers {
		if p.Type.TakesPlace() {
			n++
		}
	}
	return n
}

// CancellationRule is one tier of a fast-track's cancellation policy, in the stored
// catalog: a cancellation at least HoursBefore hours before the flight's scheduled time
// gets RefundPercent (0–100) of the price back. A policy lists its tiers by
// HoursBefore, largest first; a cancellation later than the last tier, or of a used
// pass, gets nothing.
type CancellationRule struct {
	HoursBefore   int `json:"hours_before"`
	RefundPercent int `json:"refund_percent"`
}

// CancellationTerm is one tier of a booking's cancellation policy, rendered at create
// for its flight and price: a cancellation at or before Until gets Refund back
// (RefundPercent of the price, rounded down to the minor unit), so that a cancel exactly
// HoursBefore hours before the flight still gets the tier. Terms are ordered by Until,
// earliest first, so the first whose Until is not before the cancellation applies;
// none after the last.
type CancellationTerm struct {
	Until         time.Time `json:"until"`
	RefundPercent int       `json:"refund_percent"`
	Refund        Money     `json:"refund"`
}

// BookingSlot is the capacity slot a booking holds places in: the one-hour slot of the
// fast-track that starts at Start (a whole local hour at the hub, stored as an
// instant) and the places its passengers take (Places). Capacity is the slot capacity
// the creating request found in the catalog, used by the store only when no admin
// override exists for the fast-track; it is not stored.
type BookingSlot struct {
	Start    time.Time
	Places   int
	Capacity int
}
