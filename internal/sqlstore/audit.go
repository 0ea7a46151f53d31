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
		` ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`)
	qCountAudit      = newStmt(`SELECT COUNT(*) FROM audit_events` + auditWhere)
	qApplicationByID = newStmt(`SELECT ` + applicationColumns + ` FROM applications WHERE id = ?`)
)

// AppendAudit implements skygate.AuditStore.
func (s *Store) AppendAudit(ctx context.Context, e *skygate.AuditEvent) error {
	e.At = utc(e.At)
	details := string(e.Details)
	if details == "" {
		details = "{}"
	}
	_, err := s.write.ExecContext(ctx, s.q(qInsertAudit), e.ID, e.Actor, e.Action, e.TargetType,
		e.TargetID, e.AccountID, e.RequestID, s.time(e.At), details)
	return s.interpret(outcome{op: "append audit event", conflict: "audit event exists"}, err)
}

// ListAuditEvents implements skygate.AuditStore.
func (s *Store) ListAuditEvents(ctx context.Context, f skygate.AuditFilter, p skygate.Page) ([]*skygate.AuditEvent, int, error) {
	limit, offset := pageArgs(p)
	filter := []any{f.Actor, f.Actor, f.Action, f.Action, f.AccountID, f.AccountID, f.TargetID, f.TargetID}
	events := []*skygate.AuditEvent{}
	var total int
	err := s.inReadTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.q(qListAudit), append(filter, limit, offset)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e skygate.AuditEvent
			var details string
			if err := rows.Scan(&e.ID, &e.Actor, &e.Action, &e.TargetType, &e.TargetID, &e.AccountID,
				&e.RequestID, timeCol{&e.At}, &details); err != nil {
				return err
			}
			e.Details = []byte(details)
			events = append(events, &e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(qCountAudit), filter...).Scan(&total)
	})
	if err != nil {
		return nil, 0, s.interpret(outcome{op: "list audit events"}, err)
	}
	return events, total, nil
}

// ApplicationAdmin implements skygate.ApplicationStore (admin only: no account).
func (s *Store) ApplicationAdmin(ctx context.Context, applicationID string) (*skygate.Application, error) {
	app, err := scanApplication(s.read.QueryRowContext(ctx, s.q(qApplicationByID), applicationID))
	if err != nil {
		return nil, s.interpret(outcome{op: "get application (admin)", notFound: applicationNotFound}, err)
	}
	return app, nil
}
