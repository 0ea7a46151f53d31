package skygate

// This file holds an eSIM's life: its statuses and the transitions between them, data
// usage with its notification thresholds, top-ups, and the events every change emits.

import (
	"slices"
	"time"
)

// ESIMStatus is where an eSIM is in its life.
type ESIMStatus string

const (
	// ESIMAssigned: allocated to an order; the profile is not on a device yet.
	ESIMAssigned ESIMStatus = "Assigned"
	// ESIMInstalled: the profile was downloaded to a device.
	ESIMInstalled ESIMStatus = "Installed"
	// ESIMActive: the device attached to a network; validity runs from then on.
	ESIMActive ESIMStatus = "Active"
	// ESIMDepleted: the whole data allowance is used; a top-up makes it Active again.
	ESIMDepleted ESIMStatus = "Depleted"
	// ESIMExpired: the validity ended; a top-up makes it Active again.
	ESIMExpired ESIMStatus = "Expired"
	// ESIMCanceled: canceled before its profile was ever downloaded, and refunded
	// (ESIM.Cancel); final. Its profile is never sold again.
	ESIMCanceled ESIMStatus = "Canceled"
)

// ESIMStatuses lists every ESIMStatus in the order of an eSIM's life.
var ESIMStatuses = []ESIMStatus{ESIMAssigned, ESIMInstalled, ESIMActive, ESIMDepleted, ESIMExpired, ESIMCanceled}

// IsValid reports whether s is one of ESIMStatuses.
func (s ESIMStatus) IsValid() bool { return slices.Contains(ESIMStatuses, s) }

// esimTransitions is the whole status machine:
//
//	Assigned  --install-->            Installed
//	Assigned  --cancel-->             Canceled
//	Installed --activate-->           Active
//	Active    --usage reaches 100 %--> Depleted
//	Active    --validity ends-->      Expired
//	Depleted  --validity ends-->      Expired
//	Depleted  --top-up-->             Active
//	Expired   --top-up-->             Active
//
// A top-up of an Assigned, Installed or Active eSIM adds data and validity and keeps
// the status. Nothing else moves an eSIM; in particular it never goes back to Assigned
// or Installed, an eSIM that was never activated does not expire, and nothing leaves
// Canceled.
var esimTransitions = map[ESIMStatus][]ESIMStatus{
	ESIMAssigned:  {ESIMInstalled, ESIMCanceled},
	ESIMInstalled: {ESIMActive},
	ESIMActive:    {ESIMDepleted, ESIMExpired},
	ESIMDepleted:  {ESIMExpired, ESIMActive},
	ESIMExpired:   {ESIMActive},
}

// CanTransition reports whether the status machine allows an eSIM to move from one
// status to another (see ESIMStatuses and the table in the source).
func CanTransition(from, to ESIMStatus) bool { return slices.Contains(esimTransitions[from], to) }

// ESIMUsage is the data use of an eSIM in megabytes. TotalMB and RemainingMB are null
// for an unlimited eSIM.
type ESIMUsage struct {
	TotalMB     *int `json:"total_mb"`
	UsedMB      int  `json:"used_mb"`
	RemainingMB *int `json:"remaining_mb"`
}

// NewESIMUsage returns the usage of an eSIM with total (nil: unlimited) and used.
func NewESIMUsage(total *int, used int) ESIMUsage {
	u := ESIMUsage{TotalMB: clonePtr(total), UsedMB: used}
	if total != nil {
		u.RemainingMB = new(max(*total-used, 0))
	}
	return u
}

// ESIM is a profile sold to a partner. Package is the package it was ordered with, in
// the response language (filled by the service). SMDPAddress, MatchingID and
// ActivationCode are filled by the service for the owner only, and never for a Canceled
// eSIM (the admin reads leave MatchingID and ActivationCode empty, and then absent from
// the JSON); the store keeps
// the matching ID sealed in MatchingIDSealed. ValidityDays is every day bought (the order's
// package plus top-ups); ExpiresAt is set at activation and moved by top-ups.
// NotifiedThresholds lists the account's usage thresholds already announced for the
// current allowance.
type ESIM struct {
	ICCID           string           `json:"iccid"`
	Status          ESIMStatus       `json:"status"`
	ProfileState    ProfileState     `json:"profile_state"`
	OrderID         string           `json:"order_id"`
	PackageID       string           `json:"package_id"`
	Package         *ESIMPackageItem `json:"package"`
	SMDPAddress     string           `json:"smdp_address"`
	MatchingID      string           `json:"matching_id,omitempty"`
	ActivationCode  string           `json:"activation_code,omitempty"`
	InstallLinks    *ESIMInstall     `json:"install,omitempty"`
	Usage           ESIMUsage        `json:"usage"`
	ValidityDays    int              `json:"validity_days"`
	InstalledAt     *time.Time       `json:"installed_at"`
	ActivatedAt     *time.Time       `json:"activated_at"`
	ExpiresAt       *time.Time       `json:"expires_at"`
	CanceledAt      *time.Time       `json:"canceled_at"`
	RefundableUntil *time.Time       `json:"refundable_until"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`

	AccountID          string `json:"-"`
	MatchingIDSealed   []byte `json:"-"`
	NotifiedThresholds []int  `json:"-"`
	ExpiryWarned       int    `json:"-"`
	// RefundUntil is the end of the refund window it was sold with (its order's time
	// plus its package's RefundWindow then), nil when it was sold without one: a later
	// change of the package's window never moves it.
	RefundUntil *time.Time `json:"-"`
	// Livemode is its order's, copied when the order allocates it (see Event).
	Livemode bool `json:"-"`
}

// Clone returns a deep copy of e.
func (e *ESIM) Clone() *ESIM {
	c := *e
	if e.Package != nil {
		p := *e.Package
		p.Countries = slices.Clone(e.Package.Countries)
		p.DataMB = clonePtr(e.Package.DataMB)
		c.Package = &p
	}
	c.Usage = NewESIMUsage(e.Usage.TotalMB, e.Usage.UsedMB)
	c.InstalledAt, c.ActivatedAt, c.ExpiresAt = clonePtr(e.InstalledAt), clonePtr(e.ActivatedAt), clonePtr(e.ExpiresAt)
	c.CanceledAt, c.RefundableUntil, c.InstallLinks = clonePtr(e.CanceledAt), clonePtr(e.RefundableUntil), clonePtr(e.InstallLinks)
	c.RefundUntil = clonePtr(e.RefundUntil)
	c.MatchingIDSealed = slices.Clone(e.MatchingIDSealed)
	c.NotifiedThresholds = slices.Clone(e.NotifiedThresholds)
	return &c
}

// setStatus moves e to status, or returns CodeConflict naming the current status;
// from Canceled, which nothing leaves, it is CodeInvalidESIMStatus, the code of every
// refused change of a Canceled eSIM.
func (e *ESIM) setStatus(to ESIMStatus, what string) error {
	if e.Status == ESIMCanceled {
		return errCanceled(what)
	}
	if !CanTransition(e.Status, to) {
		return Errorf(CodeConflict, "the eSIM is %s; %s is not allowed in that status", e.Status, what)
	}
	e.Status = to
	return nil
}

// Install records that the profile was downloaded to a device at now: Assigned →
// Installed, and the profile Installed unless it is further on. A Canceled eSIM is
// CodeInvalidESIMStatus, any other status CodeConflict.
func (e *ESIM) Install(now time.Time) error {
	if err := e.setStatus(ESIMInstalled, "install"); err != nil {
		return err
	}
	e.InstalledAt = &now
	e.advanceProfile(ProfileInstalled)
	return nil
}

// Activate records the first network attach at now: Installed → Active. Validity starts:
// ExpiresAt becomes now plus ValidityDays; the profile becomes Enabled, the state
// a device attaches with, unless it is Enabled already. A Canceled eSIM is
// CodeInvalidESIMStatus, any other status CodeConflict.
func (e *ESIM) Activate(now time.Time) error {
	if err := e.setStatus(ESIMActive, "activate"); err != nil {
		return err
	}
	e.advanceProfile(ProfileEnabled)
	e.ActivatedAt, e.ExpiresAt = &now, new(now.AddDate(0, 0, e.ValidityDays))
	return nil
}

// ReportUsage sets the data used so far to usedMB, a running total as networks report
// it. Only an Active eSIM has usage (else CodeConflict, CodeInvalidESIMStatus for a
// Canceled one); usedMB below the current value
// is CodeValidation. A value above the allowance is capped at it. It marks every one
// of thresholds (the account's usage thresholds, ascending) reached for the first time
// as notified, and at 100 % the eSIM becomes Depleted. An unlimited eSIM has no
// thresholds and never depletes.
func (e *ESIM) ReportUsage(usedMB int, thresholds []int) error {
	if e.Status == ESIMCanceled {
		return errCanceled("usage")
	}
	if e.Status != ESIMActive {
		return Errorf(CodeConflict, "the eSIM is %s; usage is only reported for an Active eSIM", e.Status)
	}
	if usedMB < e.Usage.UsedMB {
		return ValidationError(FieldError{Field: "used_mb", Message: "usage is a running total and cannot decrease"})
	}
	total := e.Usage.TotalMB
	if total != nil {
		usedMB = min(usedMB, *total)
	}
	e.Usage = NewESIMUsage(total, usedMB)
	if total == nil {
		return nil
	}
	for _, t := range thresholds {
		if reached(usedMB, *total, t) && !slices.Contains(e.NotifiedThresholds, t) {
			e.NotifiedThresholds = append(e.NotifiedThresholds, t)
		}
	}
	if usedMB >= *total {
		return e.setStatus(ESIMDepleted, "depletion")
	}
	return nil
}

// errCanceled is the answer to any change of a Canceled eSIM: what (a noun phrase)
// is not allowed, CodeInvalidESIMStatus.
func errCanceled(what string) error {
	return Errorf(CodeInvalidESIMStatus, "the eSIM is Canceled; %s is not allowed in that status", what)
}

// reached reports whether used is at least pct percent of total.
func reached(used, total, pct int) bool { return int64(used)*100 >= int64(total)*int64(pct) }

// Expire ends the validity at now: Active or Depleted → Expired, once ExpiresAt is at
// or before now. Otherwise it is CodeConflict.
func (e *ESIM) Expire(now time.Time) error {
	if e.ExpiresAt == nil || e.ExpiresAt.After(now) {
		return Errorf(CodeConflict, "the eSIM's validity has not ended")
	}
	return e.setStatus(ESIMExpired, "expiry")
}

// ApplyTopUp adds top-up package p to e at now. Data: a limited allowance grows by
// p.DataMB; an unlimited p makes the eSIM unlimited; an unlimited eSIM stays unlimited.
// Validity: ValidityDays grows by p.ValidityDays; an activated eSIM's ExpiresAt moves
// by as many days, from now if it had already passed. A Depleted or Expired eSIM
// becomes Active. Thresholds that the new allowance is no longer past are forgotten, so
// they are announced again when reached, and a validity that moved starts a new
// period of expiry warnings. p must be a top-up package (else CodeValidation); a
// Canceled eSIM takes none (CodeInvalidESIMStatus).
func (e *ESIM) ApplyTopUp(p *ESIMPackage, now time.Time) error {
	if !p.TopUp || !p.Active {
		return ValidationError(FieldError{Field: "package_id", Message: "is not an active top-up package"})
	}
	if e.Status == ESIMCanceled {
		return errCanceled("a top-up")
	}
	total := e.Usage.TotalMB
	switch {
	case p.DataMB == nil:
		total = nil
	case total != nil:
		total = new(*total + *p.DataMB)
	}
	e.Usage = NewESIMUsage(total, e.Usage.UsedMB)
	e.ValidityDays += p.ValidityDays
	if e.ExpiresAt != nil {
		from := *e.ExpiresAt
		if from.Before(now) {
			from = now
		}
		e.ExpiresAt = new(from.AddDate(0, 0, p.ValidityDays))
		e.ExpiryWarned = 0
	}
	e.NotifiedThresholds = slices.DeleteFunc(e.NotifiedThresholds, func(t int) bool {
		return total == nil || !reached(e.Usage.UsedMB, *total, t)
	})
	if e.Status == ESIMDepleted || e.Status == ESIMExpired {
		return e.setStatus(ESIMActive, "top-up")
	}
	return nil
}

// Event types of eSIMs (CONTRACT §5).
const (
	EventESIMOrderCompleted = "esim.order.completed"
	EventESIMUsageThreshold = "esim.usage.threshold"
	EventESIMStatusChanged  = "esim.status.changed"
)

// ESIMOrderCompletedData is the data of esim.order.completed. It never carries
// activation codes: webhooks leave the service, activation codes only by the owner's GET.
type ESIMOrderCompletedData struct {
	OrderID          string   `json:"order_id"`
	PackageID        string   `json:"package_id"`
	Quantity         int      `json:"quantity"`
	ICCIDs           []string `json:"iccids"`
	PartnerReference string   `json:"partner_reference"`
	Total            Money    `json:"total"`
}

// ESIMUsageThresholdData is the data of esim.usage.threshold: the eSIM reached
// Threshold percent of its allowance (one of the account's usage thresholds).
type ESIMUsageThresholdData struct {
	ICCID     string    `json:"iccid"`
	OrderID   string    `json:"order_id"`
	Threshold int       `json:"threshold"`
	Usage     ESIMUsage `json:"usage"`
}

// ESIMStatusChangedData is the data of esim.status.changed.
type ESIMStatusChangedData struct {
	ICCID          string     `json:"iccid"`
	OrderID        string     `json:"order_id"`
	Status         ESIMStatus `json:"status"`
	PreviousStatus ESIMStatus `json:"previous_status"`
}

// ESIMOrderingKey is the ordering key of an eSIM's events (esim.status.changed and
// esim.usage.threshold), by its ICCID: writers of one eSIM are serialised by its row
// lock, so the order in which its events are written is the order of its changes.
func ESIMOrderingKey(iccid string) string { return "esim:" + iccid }

// ESIMOrderOrderingKey is the ordering key of an order's esim.order.completed. The
// order is its own object: its one event is written in the transaction that creates
// the order and its eSIMs, before any of them can change, so no eSIM event of the
// order can be written before it; it is not ordered against them on delivery (a
// retried esim.order.completed does not hold up the eSIMs' events).
func ESIMOrderOrderingKey(orderID string) string { return "esim_order:" + orderID }

// ESIMOrderEvents returns the event of a completed order: esim.order.completed, with
// the order's Livemode.
func ESIMOrderEvents(o *ESIMOrder, now time.Time) ([]*Event, error) {
	e, err := NewEvent(o.AccountID, EventESIMOrderCompleted, o.Livemode, ESIMOrderCompletedData{
		OrderID: o.ID, PackageID: o.PackageID, Quantity: o.Quantity, ICCIDs: o.ICCIDs(),
		PartnerReference: o.PartnerReference, Total: o.Total,
	}, now)
	if err != nil {
		return nil, err
	}
	e.OrderingKey = ESIMOrderOrderingKey(o.ID)
	return []*Event{e}, nil
}

// ESIMEvents returns the events of a change of an eSIM from before to after at now: an
// esim.usage.threshold for every threshold in after's notified list that was not in
// before's, lowest first, then esim.profile.changed when the profile's state changed,
// then esim.status.changed when the status changed, all with the eSIM's ordering key
// and after's Livemode.
func ESIMEvents(before, after *ESIM, now time.Time) ([]*Event, error) {
	var events []*Event
	add := func(typ string, data any) error {
		e, err := NewEvent(after.AccountID, typ, after.Livemode, data, now)
		if err != nil {
			return err
		}
		e.OrderingKey = ESIMOrderingKey(after.ICCID)
		events = append(events, e)
		return nil
	}
	reached := slices.Clone(after.NotifiedThresholds)
	slices.Sort(reached)
	for _, t := range reached {
		if slices.Contains(before.NotifiedThresholds, t) {
			continue
		}
		if err := add(EventESIMUsageThreshold, ESIMUsageThresholdData{
			ICCID: after.ICCID, OrderID: after.OrderID, Threshold: t, Usage: after.Usage,
		}); err != nil {
			return nil, err
		}
	}
	if before.ProfileState != after.ProfileState {
		if err := add(EventESIMProfileChanged, ESIMProfileChangedData{
			ICCID: after.ICCID, OrderID: after.OrderID, ProfileState: after.ProfileState,
			PreviousProfileState: before.ProfileState,
		}); err != nil {
			return nil, err
		}
	}
	if before.Status != after.Status {
		if err := add(EventESIMStatusChanged, ESIMStatusChangedData{
			ICCID: after.ICCID, OrderID: after.OrderID, Status: after.Status, PreviousStatus: before.Status,
		}); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// clonePtr returns a pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return new(*p)
}
