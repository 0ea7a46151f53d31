package oauth

import (
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// MaxTokenRequestBody is the largest token request body accepted.
const MaxTokenRequestBody = 64 << 10

// TokenHandler serves POST /oauth/v2/token. It accepts form-urlencoded (RFC 6749) and
// JSON bodies, extracts client authentication by client_secret_basic,
// client_secret_post or private_key_jwt (two at once is invalid_request) and the client
// certificate of tls_client_auth (WithClientCertificate), and hands the request to the
// Grant registered for its grant_type. Every response carries Cache-Control: no-store
// and Pragma: no-cache; errors are RFC 6749 §5.2 JSON bodies.
type TokenHandler struct {
	grants map[string]Grant
	log    *slog.Logger
	// Transient, when set, tells a store that cannot be reached right now (a database
	// restart) from other failures: such a request is answered 503
	// temporarily_unavailable with Retry-After, as the API's routes answer 503, not
	// server_error.
	Transient func(error) bool
	// Hooks, when set, is told of every client that a request authenticated as, before
	// its token is issued, and of every failed client authentication.
	Hooks TokenHooks
}

// NewTokenHandler returns a handler serving grants. log receives the causes of
// server_error responses; nil discards them.
func NewTokenHandler(log *slog.Logger, grants ...Grant) *TokenHandler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &TokenHandler{grants: make(map[string]Grant, len(grants)), log: log}
	for _, g := range grants {
		h.grants[g.Type()] = g
	}
	return h
}

func (h *TokenHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, r, &Error{Code: CodeInvalidRequest, Description: "the token endpoint accepts POST only", Status: http.StatusMethodNotAllowed})
		return
	}
	req, err := parseTokenRequest(w, r)
	if err == nil {
		req.Client.CertThumbprint = clientCertificate(r.Context())
		if h.Hooks != nil {
			req.Client.admit = func(clientID string) error {
				if err := h.Hooks.Authenticated(w, r, clientID); err != nil {
					return &refusal{err}
				}
				return nil
			}
		}
		var resp *TokenResponse
		if resp, err = h.exchange(r, req); err == nil {
			body, _ := json.Marshal(resp) // strings and a number: cannot fail
			writeJSON(w, http.StatusOK, body)
			return
		}
	}
	if ref, ok := errors.AsType[*refusal](err); ok {
		h.Hooks.WriteRefusal(w, r, ref.err)
		return
	}
	e := asError(err)
	switch {
	case e.Code == CodeServerError && h.Transient != nil && h.Transient(err):
		h.log.WarnContext(r.Context(), "database unavailable", "err", err)
		e = &Error{Code: CodeUnavailable, Description: "the service is temporarily unavailable; retry shortly",
			Status: http.StatusServiceUnavailable, Err: err}
		w.Header().Set("Retry-After", "1")
	case e.Code == CodeServerError:
		h.log.ErrorContext(r.Context(), "token request failed", "err", err)
	case e.Code == CodeInvalidClient && h.Hooks != nil:
		h.Hooks.AuthenticationFailed(w, r, sentClientID(r, req))
	}
	writeError(w, r, e)
}

func (h *TokenHandler) exchange(r *http.Request, req *TokenRequest) (*TokenResponse, error) {
	if req.GrantType == "" {
		return nil, Errorf(CodeInvalidRequest, "grant_type is required")
	}
	g := h.grants[req.GrantType]
	if g == nil {
		return nil, Errorf(CodeUnsupportedGrantType, "grant_type %q is not supported", req.GrantType)
	}
	return g.Exchange(r.Context(), req)
}

// parseTokenRequest reads the body and the client authentication of r.
func parseTokenRequest(w http.ResponseWriter, r *http.Request) (*TokenRequest, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mediaType != "application/x-www-form-urlencoded" && mediaType != "application/json") {
		return nil, Errorf(CodeInvalidRequest, "Content-Type must be application/x-www-form-urlencoded or application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxTokenRequestBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, Errorf(CodeInvalidRequest, "the request body exceeds %d bytes", MaxTokenRequestBody)
		}
		return nil, Errorf(CodeInvalidRequest, "cannot read the request body")
	}
	var params map[string]string
	if mediaType == "application/json" {
		params, err = parseJSONParams(body)
	} else {
		params, err = parseFormParams(body)
	}
	if err != nil {
		return nil, err
	}

	req := &TokenRequest{GrantType: params["grant_type"], Params: params}
	postID, postSecret := params["client_id"], params["client_secret"]
	delete(params, "client_id")
	delete(params, "client_secret")
	if auth, ok := r.Header["Authorization"]; ok {
		if len(auth) > 1 {
			return nil, Errorf(CodeInvalidRequest, "more than one Authorization header")
		}
		id, secret, ok := parseBasicAuth(auth[0])
		if !ok {
			return nil, Errorf(CodeInvalidClient, "malformed HTTP Basic client authentication")
		}
		if postSecret != "" {
			return nil, Errorf(CodeInvalidRequest, "use one client authentication method, not both HTTP Basic and client_secret")
		}
		if postID != "" && postID != id {
			return nil, Errorf(CodeInvalidRequest, "client_id in the body differs from HTTP Basic")
		}
		req.Client = ClientAuth{Method: AuthMethodBasic, ID: id, Secret: secret}
	} else {
		req.Client = ClientAuth{ID: postID, Secret: postSecret}
		if postSecret != "" {
			req.Client.Method = AuthMethodPost
		}
	}
	if err := parseClientAssertion(params, &req.Client); err != nil {
		return nil, err
	}
	return req, nil
}

// parseClientAssertion moves the client assertion of params (RFC 7521 §4.2), if any,
// into c. An assertion beside a secret is invalid_request, as is one parameter
// without the other; a type other than ClientAssertionType is invalid_client.
func parseClientAssertion(params map[string]string, c *ClientAuth) error {
	typ, assertion := params["client_assertion_type"], params["client_assertion"]
	delete(params, "client_assertion_type")
	delete(params, "client_assertion")
	switch {
	case typ == "" && assertion == "":
		return nil
	case typ == "" || assertion == "":
		return Errorf(CodeInvalidRequest, "client_assertion and client_assertion_type go together")
	case c.Method != "":
		return Errorf(CodeInvalidRequest, "use one client authentication method, not both a client secret and a client assertion")
	case typ != ClientAssertionType:
		return Errorf(CodeInvalidClient, "client_assertion_type must be %s", ClientAssertionType)
	}
	c.Method, c.Assertion = AuthMethodPrivateKeyJWT, assertion
	return nil
}

// parseBasicAuth decodes client_secret_basic: the id and the secret are each
// form-urlencoded before being joined for HTTP Basic (RFC 6749 §2.3.1).
func parseBasicAuth(header string) (id, secret string, ok bool) {
	r := http.Request{Header: http.Header{"Authorization": {header}}}
	rawID, rawSecret, ok := r.BasicAuth()
	if !ok {
		return "", "", false
	}
	id, err1 := url.QueryUnescape(rawID)
	secret, err2 := url.QueryUnescape(rawSecret)
	if err1 != nil || err2 != nil || id == "" {
		return "", "", false
	}
	return id, secret, true
}

// parseFormParams parses a form body. Repeated parameters are invalid_request (RFC 6749
// §3.2); empty ones are dropped.
func parseFormParams(body []byte) (map[string]string, error) {
	values, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, Errorf(CodeInvalidRequest, "malformed form body")
	}
	params := make(map[string]string, len(values))
	for k, vs := range values {
		if len(vs) > 1 {
			return nil, Errorf(CodeInvalidRequest, "parameter %q is repeated", k)
		}
		if vs[0] != "" {
			params[k] = vs[0]
		}
	}
	return params, nil
}

// parseJSONParams parses a JSON object of string members. scope may also be an array
// of strings. Repeated members are invalid_request as in a form (encoding/json/v2
// refuses them); empty ones and nulls are dropped. Invalid UTF-8 becomes U+FFFD.
func parseJSONParams(body []byte) (map[string]string, error) {
	var members map[string]any
	if err := jsonv2.Unmarshal(body, &members, jsontext.AllowInvalidUTF8(true)); err != nil || members == nil {
		return nil, Errorf(CodeInvalidRequest, "the body must be one JSON object without repeated members")
	}
	params := make(map[string]string, len(members))
	for key, v := range members {
		var value string
		switch v := v.(type) {
		case string:
			value = v
		case nil:
		case []any:
			if key != "scope" {
				return nil, Errorf(CodeInvalidRequest, "member %q must be a string", key)
			}
			scopes := make([]string, len(v))
			for i, s := range v {
				var ok bool
				if scopes[i], ok = s.(string); !ok {
					return nil, Errorf(CodeInvalidRequest, "scope must be a string or an array of strings")
				}
			}
			value = strings.Join(scopes, " ")
		default:
			return nil, Errorf(CodeInvalidRequest, "member %q must be a string", key)
		}
		if value != "" {
			params[key] = value
		}
	}
	return params, nil
}
