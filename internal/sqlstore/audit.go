package sqlstore

import (
	"context"
	"database/sql"

	"github.com/skygate/skygate"
)

const auditColumns = `id, actor, action, target_type, target_id, account_id, request_id, at, details`

// Each filter is "? = ” OR column = ?", so one statement serves every combination.
const auditWhere = ` WHERE (? = '' OR actor = ?) AND (? = '' OR action = ?)
	AND (? = '' OR account_id = ?) AND (? = '' OR target_id = ?)`

var (
	qInsertAudit = newStmt(`INSERT INTO audit_events (` + auditColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	qListAudit = newStmt(`SELECT ` + auditColumns + ` FROM audit_events` + auditWhere +
		` ORDER BY at DESC, id DESC ` + limitArg + ` OFFSET ?`)
	qCountAudit      = newStmt(`SELECT COUNT(*) FROM audit_events` + auditWhere)
	qApplicationByID = newStmt(`SELECT ` + applicationColumns + ` FROM applications WHERE id = ?`)
)

// appendAudit inserts e inside tx, the transaction of the write it describes; a nil e
// is no record. Every audited write calls it last, so that the record is committed
// with the write or not at all (skygate.AuditStore).
func (s *Store) appendAudit(ctx context.Context, tx *sql.Tx, e *skygate.AuditEvent) error {
	if e == nil {
		return nil
	}
	e.At = utc(e.At)
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, err := tx.ExecContext(ctx, s.q(qInsertAudit), e.ID, e.Actor, e.Action, e.TargetType,
		e.TargetID, e.AccountID, e.RequestID, s.time(e.At), details)
	return s.interpret(outcome{op: "append audit event", conflict: "audit event exists"}, err)
}

// ListAuditEvents implements skygate.AuditStore.
func (s *Store) ListAuditEvents(ctx context.Context, f skygate.AuditFilter, p skygate.Page) ([]*skygate.AuditEvent, int, error) {
	return listPage(ctx, s, "list audit events", scanAudit, s.q(qListAudit), s.q(qCountAudit), p,
		f.Actor, f.Actor, f.Action, f.Action, f.AccountID, f.AccountID, f.TargetID, f.TargetID)
}

func scanAudit(row scanner) (*skygate.AuditEvent, error) {
	var e skygate.AuditEvent
	var details string
	if err := row.Scan(&e.ID, &e.Actor, &e.Action, &e.TargetType, &e.TargetID, &e.AccountID,
		&e.RequestID, timeCol{&e.At}, &details); err != nil {
		return nil, err
	}
	e.Details = []byte(details)
	return &e, nil
}

// ApplicationAdmin implements skygate.ApplicationStore (admin only: no account).
func (s *Store) ApplicationAdmin(ctx context.Context, applicationID string) (*skygate.Application, error) {
	app, err := scanApplication(s.read.QueryRowContext(ctx, s.q(qApplicationByID), applicationID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get application (admin)", notFound: applicationNotFound}, err)
	}
	return app, nil
}
