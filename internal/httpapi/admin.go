package httpapi

import (
	"context"
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/identity"
)

// The admin API: accounts, applications, their secrets and certificates, for
// employees, through the identity service. Every write is recorded in the audit log
// with the employee's sub, the action, the target and the request id, in the write's
// own transaction.

const adminPath = "/api/v1/admin"

// actor is who makes an admin write: the employee of the token of the request whose
// context ctx is, in that request.
func actor(ctx context.Context) skygate.Actor {
	a := skygate.Actor{RequestID: requestIDOf(ctx)}
	if c := principalOf(ctx); c != nil {
		a.Subject = c.Subject
	}
	return a
}

// audit returns the record of an admin write that a service other than identity
// commits: the action on the target of the account, with the write's non-secret
// parameters as details.
func (s *Server) audit(ctx context.Context, action, targetType, targetID, accountID string, details any) (*skygate.AuditEvent, error) {
	return actor(ctx).Audit(s.now(), action, targetType, targetID, accountID, details)
}

func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) error {
	var req identity.NewAccount
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	a, err := s.deps.Identity.CreateAccount(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	w.Header().Set("Location", adminPath+"/accounts/"+a.ID)
	return writeJSON(w, http.StatusCreated, a)
}

func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) error {
	return writeList(w, r, func(p skygate.Page) ([]*skygate.Account, int, error) {
		return s.deps.Identity.Accounts(r.Context(), p)
	})
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Identity.Account(r.Context(), r.PathValue("accountID")))
}

// patchAccount changes the status. A suspension applies at once on this replica and
// within a second on the others; the account's tokens stop working and it gets no new
// ones.
func (s *Server) patchAccount(w http.ResponseWriter, r *http.Request) error {
	req := identity.StatusChange{AccountID: r.PathValue("accountID")}
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	a, err := s.deps.Identity.SetAccountStatus(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	s.accounts.Set(a.ID, a.Status)
	return writeJSON(w, http.StatusOK, a)
}

// createApplication answers the application with its secret: the only time the
// secret is shown.
func (s *Server) createApplication(w http.ResponseWriter, r *http.Request) error {
	req := identity.NewApplication{AccountID: r.PathValue("accountID")}
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	app, err := s.deps.Identity.CreateApplication(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	w.Header().Set("Location", adminPath+"/applications/"+app.ID)
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, app)
}

func (s *Server) listApplications(w http.ResponseWriter, r *http.Request) error {
	return writeList(w, r, func(p skygate.Page) ([]*skygate.Application, int, error) {
		return s.deps.Identity.Applications(r.Context(), r.PathValue("accountID"), p)
	})
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Identity.Application(r.Context(), r.PathValue("applicationID")))
}

func (s *Server) deleteApplication(w http.ResponseWriter, r *http.Request) error {
	app, err := s.deps.Identity.DeleteApplication(r.Context(), actor(r.Context()), r.PathValue("applicationID"))
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateApplicationSecret replaces the secret; the old one keeps getting tokens for
// the body's grace period (identity.SecretRotation), on every replica until the same
// instant. Tokens already issued live until they expire, unless the body asks to
// revoke them: then the old secret stops at once, the application's TokenGeneration
// moves past theirs in the same write, and they stop working at once here and within
// ApplicationCacheTTL on other replicas (see checkApplication).
func (s *Server) rotateApplicationSecret(w http.ResponseWriter, r *http.Request) error {
	req := identity.SecretRotation{ApplicationID: r.PathValue("applicationID")}
	if err := decodeOptionalJSON(w, r, &req); err != nil {
		return err
	}
	app, err := s.deps.Identity.RotateSecret(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, app)
}

// createApplicationCertificate issues a certificate from the partner's CSR or checks
// one signed elsewhere, and binds the application to it; the binding applies at once
// here and within a second on other replicas.
func (s *Server) createApplicationCertificate(w http.ResponseWriter, r *http.Request) error {
	req := identity.CertificateRequest{ApplicationID: r.PathValue("applicationID")}
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	cert, err := s.deps.Identity.AddCertificate(r.Context(), actor(r.Context()), req)
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(cert.Application.ClientID)
	return writeJSON(w, http.StatusCreated, cert)
}

func (s *Server) listAuditEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := skygate.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), AccountID: q.Get("account_id"), TargetID: q.Get("target_id")}
	return writeList(w, r, func(p skygate.Page) ([]*skygate.AuditEvent, int, error) {
		return s.deps.Audit.ListAuditEvents(r.Context(), f, p)
	})
}
