package devidp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// token serves the authorization_code grant (RFC 6749 §4.1.3, OpenID Connect Core
// §3.1.3). A code works once: it is removed before anything else is checked, so a
// failed attempt uses it up too.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "malformed form body")
		return
	}
	form := r.PostForm
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			basic = false
		}
	}
	if !basic {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if id != clientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.secret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="devidp"`)
		tokenError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if gt := form.Get("grant_type"); gt != "authorization_code" {
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code is supported")
		return
	}
	now := p.cfg.Clock()
	code := form.Get("code")
	p.mu.Lock()
	g := p.codes[code]
	delete(p.codes, code)
	p.mu.Unlock()
	switch {
	case g == nil || !now.Before(g.expires):
		tokenError(w, http.StatusBadRequest, "invalid_grant", "the code is unknown, used or expired")
		return
	case form.Get("redirect_uri") != p.cfg.RedirectURI:
		tokenError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request")
		return
	case g.challenge != "" && !verifierMatches(form.Get("code_verifier"), g.challenge):
		tokenError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		return
	}

	access := newSecret()
	idToken, err := p.signIDToken(g, access, now)
	if err != nil {
		tokenError(w, http.StatusInternalServerError, "server_error", "cannot sign the ID token")
		return
	}
	at := *g
	at.expires = now.Add(AccessTokenTTL)
	p.mu.Lock()
	p.prune(now)
	p.tokens[access] = &at
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(AccessTokenTTL / time.Second),
		"id_token":     idToken,
		"scope":        g.scope,
	})
}

// verifierMatches checks an RFC 7636 S256 code_verifier against the challenge, in
// constant time.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(oauth2.S256ChallengeFromVerifier(verifier)), []byte(challenge)) == 1
}

// userinfo answers the claims of the employee an access token belongs to (OpenID
// Connect Core §5.3). The token comes in the Authorization header only.
func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	p.mu.Lock()
	g := p.tokens[token]
	p.mu.Unlock()
	if !strings.EqualFold(scheme, "Bearer") || g == nil || !p.cfg.Clock().Before(g.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="devidp", error="invalid_token"`)
		tokenError(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid or expired")
		return
	}
	writeJSON(w, http.StatusOK, p.employeeClaims(g.employee))
}

// employeeClaims are the standard claims of an employee, shared by the ID token and
// userinfo. groups is always an array, possibly empty.
func (p *Provider) employeeClaims(e Employee) map[string]any {
	groups := e.Groups
	if groups == nil {
		groups = []string{}
	}
	return map[string]any{
		"sub": e.Subject(), "name": e.Name, "preferred_username": e.Username,
		"email": e.Email, "email_verified": true, "groups": groups,
	}
}

// signIDToken returns the ES256 ID token of g, with at_hash binding it to the access
// token (OpenID Connect Core §3.1.3.6).
func (p *Provider) signIDToken(g *grant, accessToken string, now time.Time) (string, error) {
	claims := p.employeeClaims(g.employee)
	sum := sha256.Sum256([]byte(accessToken))
	claims["iss"] = p.cfg.Issuer
	claims["aud"] = clientID
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(IDTokenTTL).Unix()
	claims["auth_time"] = g.authTime.Unix()
	claims["at_hash"] = base64.RawURLEncoding.EncodeToString(sum[:16])
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := p.signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func tokenError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
