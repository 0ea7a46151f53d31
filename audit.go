package skygate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// AuditEvent records one administrative write: an employee's through the admin API,
// `skygate bootstrap`'s, or one the service makes by itself.
type AuditEvent struct {
	ID string `json:"id"`
	// Actor says who wrote: the employee's subject (the sub claim of their token),
	// ActorBootstrap or ActorSystem.
	Actor string `json:"actor"`
	// Action names the write, "<resource>.<verb>" (e.g. "account.create",
	// "application.rotate_secret", "booking.complete").
	Action string `json:"action"`
	// TargetType and TargetID name the object written.
	TargetType string `json:"target_type"`
	TargetID   string `json:"target_id"`
	// AccountID is the tenant the target belongs to, "" for none.
	AccountID string `json:"account_id,omitempty"`
	// RequestID is the id of the request that made the write, "" outside a request.
	RequestID string    `json:"request_id"`
	At        time.Time `json:"at"`
	// Details holds the write's non-secret parameters as a JSON object.
	Details json.RawMessage `json:"details,omitempty"`
}

// AddDetails sets the keys of add in e's Details, a JSON object (none counts as {}),
// replacing those already there: for what only the write itself learns, such as the
// values it replaced.
func (e *AuditEvent) AddDetails(add map[string]any) error {
	details := map[string]json.RawMessage{}
	if len(e.Details) > 0 {
		if err := json.Unmarshal(e.Details, &details); err != nil {
			return fmt.Errorf("audit details of %s: %w", e.Action, err)
		}
	}
	for k, v := range add {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("audit detail %s of %s: %w", k, e.Action, err)
		}
		details[k] = b
	}
	b, err := json.Marshal(details)
	if err != nil {
		return err
	}
	e.Details = b
	return nil
}

// Actors of the writes that no employee makes.
const (
	// ActorBootstrap is the actor of `skygate bootstrap`.
	ActorBootstrap = "bootstrap"
	// ActorSystem is the actor of writes the service makes by itself: the demo account
	// of non-production starts.
	ActorSystem = "system"
)

// Actor is who makes an audited write, and in which request.
type Actor struct {
	// Subject becomes the records' Actor: an employee's sub, ActorBootstrap or
	// ActorSystem.
	Subject string
	// RequestID is the request's id, "" outside a request.
	RequestID string
}

// Audit returns the record of a write by a at the given time: the action on the
// target of the account, with details (the write's non-secret parameters, encoded as
// a JSON object; nil for none) and a new ID.
func (a Actor) Audit(at time.Time, action, targetType, targetID, accountID string, details any) (*AuditEvent, error) {
	var raw json.RawMessage
	if details != nil {
		var err error
		if raw, err = json.Marshal(details); err != nil {
			return nil, err
		}
	}
	return &AuditEvent{
		ID: NewID(), Actor: a.Subject, Action: action, TargetType: targetType, TargetID: targetID,
		AccountID: accountID, RequestID: a.RequestID, At: at, Details: raw,
	}, nil
}

// AuditFilter narrows ListAuditEvents; empty fields match everything.
type AuditFilter struct {
	Actor     string
	Action    string
	AccountID string
	TargetID  string
}

// AuditStore reads the audit log. It is append-only, and nothing appends a record on
// its own: every audited write of the store takes its record as its last argument
// and commits it in the write's own transaction, so a record never exists without its
// write nor an audited write without its record. An audited write given no record
// (nil) is refused and changes nothing: no caller can make one unaudited.
type AuditStore interface {
	// ListAuditEvents returns a page of events matching f, newest first, and the total.
	ListAuditEvents(ctx context.Context, f AuditFilter, p Page) ([]*AuditEvent, int, error)
}
