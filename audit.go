package skygate

import (
	"context"
	"encoding/json"
	"sync/atomic"
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

// WithAudit returns a context under which a store appends e in the same transaction as
// the first write it commits: an admin write and its audit record are committed
// together or not at all. ID and At are set by the caller. Stores take the record in
// every write transaction they run under ctx (see PendingAudit).
func WithAudit(ctx context.Context, e *AuditEvent) (context.Context, *PendingAudit) {
	p := &PendingAudit{event: e}
	return context.WithValue(ctx, auditKey{}, p), p
}

type auditKey struct{}

// PendingAudit is an audit record waiting for the write it describes.
type PendingAudit struct {
	event *AuditEvent
	taken atomic.Bool
}

// PendingAuditFrom returns the record that ctx carries, or nil.
func PendingAuditFrom(ctx context.Context) *PendingAudit {
	p, _ := ctx.Value(auditKey{}).(*PendingAudit)
	return p
}

// Take returns the record to the write transaction that is about to commit, or nil
// when another transaction has it already. A transaction that took it and then failed
// calls Release, so that a later write of the same request takes it instead.
func (p *PendingAudit) Take() *AuditEvent {
	if p.taken.CompareAndSwap(false, true) {
		return p.event
	}
	return nil
}

// Release gives the record back after the transaction that took it failed.
func (p *PendingAudit) Release() { p.taken.Store(false) }

// Taken reports whether a transaction holds the record: after a successful write, that
// the record was committed with it.
func (p *PendingAudit) Taken() bool { return p.taken.Load() }
