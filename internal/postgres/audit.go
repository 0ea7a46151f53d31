package postgres

import (
	"context"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/sqlstore"
)

const (
	insertAudit = `INSERT INTO audit_events
		(id, actor, action, target_type, target_id, account_id, request_id, at, details)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	// An empty filter argument matches every row, so one statement serves every
	// combination of filters.
	listAudit = `SELECT id, actor, action, target_type, target_id, account_id, request_id, at, details
		FROM audit_events
		WHERE ($1 = '' OR actor = $1) AND ($2 = '' OR action = $2)
		  AND ($3 = '' OR account_id = $3) AND ($4 = '' OR target_id = $4)
		ORDER BY at DESC, id DESC LIMIT $5 OFFSET $6`
	countAudit = `SELECT count(*) FROM audit_events
		WHERE ($1 = '' OR actor = $1) AND ($2 = '' OR action = $2)
		  AND ($3 = '' OR account_id = $3) AND ($4 = '' OR target_id = $4)`
)

// ListAuditEvents implements skygate.AuditStore.
func (s *Store) ListAuditEvents(ctx context.Context, f skygate.AuditFilter, p skygate.Page) ([]*skygate.AuditEvent, int, error) {
	return sqlstore.ListPage(ctx, s.db, "list audit events", sqlstore.ScanAudit, listAudit, countAudit, p,
		f.Actor, f.Action, f.AccountID, f.TargetID)
}
