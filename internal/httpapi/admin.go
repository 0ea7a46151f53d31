package httpapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// The admin API: accounts and applications, for employees. Every write is recorded in
// the audit log with the employee's sub, the action, the target and the request id.

const (
	adminPath   = "/api/v1/admin"
	maxNameLen  = 128
	accountType = "account"
	appType     = "application"
)

type accountRequest struct {
	Name string `json:"name"`
}

func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) error {
	var req accountRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := validName("name", req.Name); err != nil {
		return err
	}
	now := s.now().UTC()
	a := &skygate.Account{ID: skygate.NewID(), Name: strings.TrimSpace(req.Name), Status: skygate.AccountActive, CreatedAt: now, UpdatedAt: now}
	rec := auditRecord{"account.create", accountType, a.ID, a.ID, req}
	if err := s.audited(w, r, rec, func(ctx context.Context) error { return s.deps.Store.CreateAccount(ctx, a) }); err != nil {
		return err
	}
	w.Header().Set("Location", adminPath+"/accounts/"+a.ID)
	return writeJSON(w, http.StatusCreated, a)
}

func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) error {
	p, err := parsePage(r)
	if err != nil {
		return err
	}
	items, total, err := s.deps.Store.ListAccounts(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, newList(items, p, total))
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) error {
	a, err := s.deps.Store.Account(r.Context(), r.PathValue("accountID"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a)
}

type accountPatch struct {
	Status skygate.AccountStatus `json:"status"`
}

// patchAccount changes the status. A suspension applies at once on this replica and
// within a second on the others; the account's tokens stop working and it gets no new
// ones.
func (s *Server) patchAccount(w http.ResponseWriter, r *http.Request) error {
	var req accountPatch
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.Status != skygate.AccountActive && req.Status != skygate.AccountSuspended {
		return skygate.ValidationError(skygate.FieldError{Field: "status", Message: "must be active or suspended"})
	}
	id := r.PathValue("accountID")
	var a *skygate.Account
	err := s.audited(w, r, auditRecord{"account.update", accountType, id, id, req}, func(ctx context.Context) (err error) {
		a, err = s.deps.Store.SetAccountStatus(ctx, id, req.Status, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.accounts.Set(a.ID, a.Status)
	return writeJSON(w, http.StatusOK, a)
}

type applicationRequest struct {
	Name             string   `json:"name"`
	AllowedScopes    []string `json:"allowed_scopes"`
	Sandbox          bool     `json:"sandbox"`
	ClientCertSHA256 string   `json:"client_cert_sha256"`
}

func (req applicationRequest) validate() error {
	var fields []skygate.FieldError
	if err := validName("name", req.Name); err != nil {
		fields = append(fields, err.(*skygate.Error).Fields...)
	}
	if len(req.AllowedScopes) == 0 {
		fields = append(fields, skygate.FieldError{Field: "allowed_scopes", Message: "must list at least one scope"})
	}
	for i, sc := range req.AllowedScopes {
		if !slices.Contains(skygate.B2BScopes, sc) {
			fields = append(fields, skygate.FieldError{Field: "allowed_scopes[" + itoa(i) + "]", Message: "unknown B2B scope " + sc})
		}
	}
	if req.ClientCertSHA256 != "" {
		if b, err := base64.RawURLEncoding.DecodeString(req.ClientCertSHA256); err != nil || len(b) != 32 {
			fields = append(fields, skygate.FieldError{Field: "client_cert_sha256", Message: "must be the base64url (unpadded) SHA-256 of the certificate's DER (x5t#S256)"})
		}
	}
	if len(fields) > 0 {
		return skygate.ValidationError(fields...)
	}
	return nil
}

// applicationWithSecret is the answer to create and rotate-secret: the only time the
// secret is shown.
type applicationWithSecret struct {
	*skygate.Application
	ClientSecret string `json:"client_secret"`
}

func (s *Server) createApplication(w http.ResponseWriter, r *http.Request) error {
	var req applicationRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	secret, err := oauth.NewClientSecret()
	if err != nil {
		return err
	}
	now := s.now().UTC()
	app := &skygate.Application{
		ID: skygate.NewID(), AccountID: r.PathValue("accountID"), Name: strings.TrimSpace(req.Name),
		ClientID: skygate.NewClientID(), SecretHash: s.deps.Secrets.Hash(secret),
		AllowedScopes: skygate.ParseScopes(strings.Join(req.AllowedScopes, " ")), Sandbox: req.Sandbox,
		ClientCertSHA256: req.ClientCertSHA256, CreatedAt: now, UpdatedAt: now,
	}
	rec := auditRecord{"application.create", appType, app.ID, app.AccountID, req}
	if err := s.audited(w, r, rec, func(ctx context.Context) error { return s.deps.Store.CreateApplication(ctx, app) }); err != nil {
		return err
	}
	w.Header().Set("Location", adminPath+"/applications/"+app.ID)
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, applicationWithSecret{app, secret})
}

func (s *Server) listApplications(w http.ResponseWriter, r *http.Request) error {
	p, err := parsePage(r)
	if err != nil {
		return err
	}
	accountID := r.PathValue("accountID")
	if _, err := s.deps.Store.Account(r.Context(), accountID); err != nil {
		return err
	}
	items, total, err := s.deps.Store.ListApplications(r.Context(), accountID, p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, newList(items, p, total))
}

func (s *Server) getApplication(w http.ResponseWriter, r *http.Request) error {
	app, err := s.deps.Store.ApplicationAdmin(r.Context(), r.PathValue("applicationID"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, app)
}

func (s *Server) deleteApplication(w http.ResponseWriter, r *http.Request) error {
	app, err := s.deps.Store.ApplicationAdmin(r.Context(), r.PathValue("applicationID"))
	if err != nil {
		return err
	}
	rec := auditRecord{"application.delete", appType, app.ID, app.AccountID, nil}
	if err := s.audited(w, r, rec, func(ctx context.Context) error { return s.deps.Store.DeleteApplication(ctx, app.AccountID, app.ID) }); err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateSecretRequest is the optional body of rotate-secret.
type rotateSecretRequest struct {
	RevokeTokens bool `json:"revoke_tokens"`
}

// rotateApplicationSecret replaces the secret at once: the old one stops working for
// new tokens. Tokens already issued live until they expire, unless the body asks to
// revoke them: then the application's TokenGeneration moves past theirs in the same
// write, and they stop working at once here and within ApplicationCacheTTL on other
// replicas (see checkApplication).
func (s *Server) rotateApplicationSecret(w http.ResponseWriter, r *http.Request) error {
	var req rotateSecretRequest
	if err := decodeOptionalJSON(w, r, &req); err != nil {
		return err
	}
	app, err := s.deps.Store.ApplicationAdmin(r.Context(), r.PathValue("applicationID"))
	if err != nil {
		return err
	}
	secret, err := oauth.NewClientSecret()
	if err != nil {
		return err
	}
	rec := auditRecord{"application.rotate_secret", appType, app.ID, app.AccountID, req}
	err = s.audited(w, r, rec, func(ctx context.Context) (err error) {
		now, hash := s.now(), s.deps.Secrets.Hash(secret)
		if req.RevokeTokens {
			app, err = s.deps.Store.SetApplicationSecretRevokingTokens(ctx, app.AccountID, app.ID, hash, now)
		} else {
			app, err = s.deps.Store.SetApplicationSecret(ctx, app.AccountID, app.ID, hash, now)
		}
		return err
	})
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, applicationWithSecret{app, secret})
}

func (s *Server) listAuditEvents(w http.ResponseWriter, r *http.Request) error {
	p, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := skygate.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), AccountID: q.Get("account_id"), TargetID: q.Get("target_id")}
	items, total, err := s.deps.Store.ListAuditEvents(r.Context(), f, p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, newList(items, p, total))
}

// auditRecord describes an admin write for the audit log. details are the request's
// non-secret parameters.
type auditRecord struct {
	action, targetType, targetID, accountID string
	details                                 any
}

// audited runs write under a context that makes the store commit the audit record in
// the write's own transaction (skygate.WithAudit), so no admin write is committed
// without its record. Should a write path ever commit without taking the record (a
// bug the admin tests look for), the record is appended on its own and the slip
// logged, rather than lost.
func (s *Server) audited(w http.ResponseWriter, r *http.Request, rec auditRecord, write func(ctx context.Context) error) error {
	var raw json.RawMessage
	if rec.details != nil {
		b, err := json.Marshal(rec.details)
		if err != nil {
			return err
		}
		raw = b
	}
	actor := ""
	if c := principalOf(w); c != nil {
		actor = c.Subject
	}
	e := &skygate.AuditEvent{
		ID: skygate.NewID(), Actor: actor, Action: rec.action, TargetType: rec.targetType, TargetID: rec.targetID,
		AccountID: rec.accountID, RequestID: requestIDOf(w), At: s.now(), Details: raw,
	}
	ctx, pending := skygate.WithAudit(r.Context(), e)
	if err := write(ctx); err != nil {
		return err
	}
	if pending.Taken() {
		return nil
	}
	s.deps.Log.ErrorContext(r.Context(), "admin write committed without its audit record; appending it on its own", "action", rec.action)
	return s.deps.Store.AppendAudit(r.Context(), e)
}

// validName checks a display name: 1–128 characters, no control characters.
func validName(field, v string) error {
	v = strings.TrimSpace(v)
	msg := ""
	switch {
	case v == "":
		msg = "is required"
	case utf8.RuneCountInString(v) > maxNameLen:
		msg = "must be at most 128 characters"
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		msg = "must not contain control characters"
	default:
		return nil
	}
	return skygate.ValidationError(skygate.FieldError{Field: field, Message: msg})
}
