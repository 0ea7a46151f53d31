package skygate

import (
	"context"
	"encoding/json"
	"time"
)

// AuditEvent records one write made by an employee through the admin API.
type AuditEvent struct {
	ID string `json:"id"`
	// Actor is the employee's subject (the sub claim of their token).
	Actor string `json:"actor"`
	// Action names the write, "<resource>.<verb>" (e.g. "account.create",
	// "application.rotate_secret", "booking.complete").
	Action string `json:"action"`
	// TargetType and TargetID name the object written.
	TargetType string `json:"target_type"`
	TargetID   string `json:"target_id"`
	// AccountID is the tenant the target belongs to, "" for none.
	AccountID string    `json:"account_id,omitempty"`
	RequestID string    `json:"request_id"`
	At        time.Time `json:"at"`
	// Details holds the request's non-secret parameters as a JSON object.
	Details json.RawMessage `json:"details,omitempty"`
}

// AuditFilter narrows ListAuditEvents; empty fields match everything.
type AuditFilter struct {
	Actor     string
	Action    string
	AccountID string
	TargetID  string
}

// AuditStore keeps the admin audit log. It is append-only.
type AuditStore interface {
	// AppendAudit stores e. ID and At are set by the caller.
	AppendAudit(ctx context.Context, e *AuditEvent) error
	// ListAuditEvents returns a page of events matching f, newest first, and the total.
	ListAuditEvents(ctx context.Context, f AuditFilter, p Page) ([]*AuditEvent, int, error)
}
