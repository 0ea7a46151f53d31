package sqlite

import (
	"context"
	"database/sql"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertAudit = `INSERT INTO audit_events
		(id, actor, action, target_type, target_id, account_id, request_id, at, details)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// An empty filter argument matches every row, so one statement serves every
	// combination of filters; each filter is passed twice.
	listAudit = `SELECT id, actor, action, target_type, target_id, account_id, request_id, at, details
		FROM audit_events
		WHERE (? = '' OR actor = ?) AND (? = '' OR action = ?)
		  AND (? = '' OR account_id = ?) AND (? = '' OR target_id = ?)
		ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`
	countAudit = `SELECT count(*) FROM audit_events
		WHERE (? = '' OR actor = ?) AND (? = '' OR action = ?)
		  AND (? = '' OR account_id = ?) AND (? = '' OR target_id = ?)`
)

// appendAudit inserts e inside tx, the transaction of the write it describes; a nil e
// is no record. Every audited write calls it last, so that the record is committed
// with the write or not at all (skygate.AuditStore).
func appendAudit(ctx context.Context, tx *sql.Tx, e *skygate.AuditEvent) error {
	if e == nil {
		return nil
	}
	e.At = sqlstore.UTC(e.At)
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, err := tx.ExecContext(ctx, insertAudit, e.ID, e.Actor, e.Action, e.TargetType,
		e.TargetID, e.AccountID, e.RequestID, micros(e.At), details)
	return interpret(sqlstore.Outcome{Op: "append audit event", Conflict: "audit event exists"}, err)
}

// ListAuditEvents implements skygate.AuditStore.
func (s *Store) ListAuditEvents(ctx context.Context, f skygate.AuditFilter, p skygate.Page) ([]*skygate.AuditEvent, int, error) {
	return listPage(ctx, s, "list audit events", sqlstore.ScanAudit, listAudit, countAudit, p,
		f.Actor, f.Actor, f.Action, f.Action, f.AccountID, f.AccountID, f.TargetID, f.TargetID)
}
