package login

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/skygate/skygate"
)

// CodeTTL is the lifetime of the one-time code sent to the SPA.
const CodeTTL = 60 * time.Second

// Callback serves GET /api/v1/auth/idp/callback?code&state (or error&state from the
// provider).
//
// A state that is missing or whose signature fails is a CodeBadRequest error: its
// redirect URI cannot be trusted. Once the state is authentic, every failure is a
// redirect to its redirect URI (if still whitelisted) with the SPA's state and
// error=invalid_request (expired state, another browser, no code),
// access_denied (the provider refused the employee or its answer failed a check),
// temporarily_unavailable (the provider could not be reached) or server_error.
//
// On success it stores a one-time code (CodeTTL, single use, bound to the SPA's
// code_challenge and redirect URI, carrying the employee's roles and scopes) and
// answers 302 to redirect_uri?code=…&state=…. An employee with no role gets a code
// too; the token endpoint answers it access_denied (403), after the PKCE check, so
// that only the SPA that started the login learns it.
func (h *Handler) Callback(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	st, err := h.keys.verifyState(q.Get("state"), h.cfg.Clock())
	switch {
	case errors.Is(err, errStateExpired) && h.redirects[st.RedirectURI]:
		return h.fail(w, r, st.RedirectURI, st.SPAState, "invalid_request", "the login took too long; start it again")
	case err != nil:
		return skygate.Errorf(skygate.CodeBadRequest, "the state parameter is missing, invalid or expired; start the login again")
	case !h.redirects[st.RedirectURI]:
		// Signed by us, but the whitelist changed since.
		return skygate.Errorf(skygate.CodeBadRequest, "the login's redirect URI is no longer registered")
	}
	fail := func(code, desc string) error { return h.fail(w, r, st.RedirectURI, st.SPAState, code, desc) }

	c, err := r.Cookie(CookieName)
	if err != nil || subtle.ConstantTimeCompare([]byte(bindingHash(c.Value)), []byte(st.Binding)) != 1 {
		return fail("invalid_request", "the login must finish in the browser that started it, with cookies enabled")
	}
	if e := q.Get("error"); e != "" {
		h.cfg.Log.InfoContext(ctx, "the identity provider refused a login", "error", e, "error_description", q.Get("error_description"))
		code := providerError(e)
		return fail(code, "the identity provider did not sign the employee in ("+code+")")
	}
	code := q.Get("code")
	if code == "" {
		return fail("invalid_request", "the identity provider sent no code")
	}
	up, err := h.upstream(ctx)
	if err != nil {
		h.cfg.Log.ErrorContext(ctx, "identity provider discovery failed", "issuer", h.cfg.Issuer, "err", err)
		return fail("temporarily_unavailable", "the identity provider cannot be reached; try again later")
	}
	emp, err := h.exchange(ctx, up, code, st)
	switch {
	case errors.Is(err, errRefused):
		h.cfg.Log.WarnContext(ctx, "employee login refused", "err", err)
		return fail("access_denied", "the identity provider's answer could not be verified")
	case err != nil:
		h.cfg.Log.ErrorContext(ctx, "employee login failed at the identity provider", "err", err)
		return fail("temporarily_unavailable", "the identity provider cannot be reached; try again later")
	}

	roles, scopes := h.cfg.Policy.Map(emp.Groups)
	oneTime, err := h.storeCode(ctx, emp, roles, scopes, st)
	if err != nil {
		h.cfg.Log.ErrorContext(ctx, "storing a login code failed", "err", err)
		return fail("server_error", "the login could not be completed; try again")
	}
	h.cfg.Log.InfoContext(ctx, "employee signed in at the identity provider",
		"sub", emp.Subject, "roles", roles, "groups", emp.Groups)
	return redirectTo(w, r, st.RedirectURI, url.Values{"code": {oneTime}}, st.SPAState)
}

// storeCode creates the one-time code and returns it; only its hash is stored.
func (h *Handler) storeCode(ctx context.Context, emp *employee, roles, scopes []string, st *loginState) (string, error) {
	code := newRandom()
	hash := sha256.Sum256([]byte(code))
	now := h.cfg.Clock()
	err := h.cfg.Codes.CreateLoginCode(ctx, &skygate.LoginCode{
		Hash: hash[:], Subject: emp.Subject, Email: emp.Email, Name: emp.Name,
		Roles: roles, Scopes: scopes, CodeChallenge: st.Challenge, RedirectURI: st.RedirectURI,
		CreatedAt: now, ExpiresAt: now.Add(CodeTTL),
	})
	return code, err
}

// providerError maps the provider's error to what the SPA is told: refusals of the
// employee are access_denied, the provider's own trouble is temporarily_unavailable,
// and everything else (Skygate misconfigured at the provider) is server_error.
func providerError(e string) string {
	switch e {
	case "access_denied", "login_required", "consent_required", "interaction_required", "account_selection_required":
		return "access_denied"
	case "temporarily_unavailable":
		return "temporarily_unavailable"
	default:
		return "server_error"
	}
}

// PruneCodes deletes the codes that expired before now and returns how many.
func (h *Handler) PruneCodes(ctx context.Context) (int64, error) {
	return h.cfg.Codes.DeleteExpiredLoginCodes(ctx, h.cfg.Clock())
}
