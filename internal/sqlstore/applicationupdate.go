package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/skygate/skygate"
)

// UpdateApplicationSettings is skygate.ApplicationUpdater's UpdateApplication. One
// transaction sets the audiences with setAudiences (audiences as JSON 1, updated_at 2,
// account id 3, id 4) or, when u leaves them, touches the application with st.Touch;
// either finds the application in the account or changes no row. It then replaces or
// removes the JWK Set when u asks for it and appends audit's record.
func UpdateApplicationSettings(ctx context.Context, db *DB, st *ClientKeyStatements, setAudiences, accountID, applicationID string, u skygate.ApplicationUpdate, now time.Time, audit *skygate.AuditEvent) error {
	const op = "update application"
	if err := Audited(op, audit); err != nil {
		return err
	}
	audiences := u.Audiences
	if audiences == nil {
		audiences = []string{}
	}
	text, err := JSONText(audiences)
	if err != nil {
		return err
	}
	err = db.InTx(ctx, func(tx *Tx) error {
		var (
			res sql.Result
			err error
		)
		if u.SetAudiences {
			res, err = tx.ExecContext(ctx, setAudiences, text, db.Time(now), accountID, applicationID)
		} else {
			res, err = tx.ExecContext(ctx, st.Touch, db.Time(now), accountID, applicationID)
		}
		if err != nil {
			return err
		}
		if err := checkAffected(res, ApplicationNotFound); err != nil {
			return err
		}
		if u.SetJWKS {
			if u.JWKS == nil {
				_, err = tx.ExecContext(ctx, st.Delete, accountID, applicationID)
			} else {
				_, err = tx.ExecContext(ctx, st.Upsert, applicationID, accountID, string(u.JWKS), db.Time(now))
			}
			if err != nil {
				return err
			}
		}
		return db.Audit(ctx, tx, audit)
	})
	return db.Interpret(Outcome{Op: op, NotFound: ApplicationNotFound}, err)
}
