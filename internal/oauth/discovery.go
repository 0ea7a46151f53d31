package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate"
)

// Paths of the identity endpoints, relative to SKYGATE_PUBLIC_URL.
const (
	TokenPath                 = "/oauth/v2/token"
	JWKSPath                  = "/.well-known/jwks.json"
	OpenIDConfigPath          = "/.well-known/openid-configuration"
	ServerMetadataPath        = "/.well-known/oauth-authorization-server"
	AuthorizationPath         = "/api/v1/auth/idp/login"
	AuthorizationCallbackPath = "/api/v1/auth/idp/callback"
)

// Metadata is the discovery document (RFC 8414, OpenID Connect Discovery 1.0), served
// identically at OpenIDConfigPath and ServerMetadataPath.
type Metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	SubjectTypesSupported             []string `json:"subject_types_supported"`
	IDTokenSigningAlgValuesSupported  []string `json:"id_token_signing_alg_values_supported"`

	// RevocationEndpoint (RFC 7009) and IntrospectionEndpoint (RFC 7662) take the
	// client authentication of the token endpoint but "none" (RFC 8414 §2).
	RevocationEndpoint                                 string   `json:"revocation_endpoint"`
	RevocationEndpointAuthMethodsSupported             []string `json:"revocation_endpoint_auth_methods_supported"`
	RevocationEndpointAuthSigningAlgValuesSupported    []string `json:"revocation_endpoint_auth_signing_alg_values_supported"`
	IntrospectionEndpoint                              string   `json:"introspection_endpoint"`
	IntrospectionEndpointAuthMethodsSupported          []string `json:"introspection_endpoint_auth_methods_supported"`
	IntrospectionEndpointAuthSigningAlgValuesSupported []string `json:"introspection_endpoint_auth_signing_alg_values_supported"`

	// TLSClientCertificateBoundAccessTokens: tokens of applications bound to a client
	// certificate carry it (cnf x5t#S256) and need it (RFC 8705 §3.3).
	TLSClientCertificateBoundAccessTokens bool `json:"tls_client_certificate_bound_access_tokens"`

	// TokenEndpointAuthSigningAlgValuesSupported are the algorithms of private_key_jwt
	// client assertions (ClientAssertionAlgs).
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported"`
}

// clientEndpointAuthMethods are the client authentication methods of the revocation
// and introspection endpoints, and assertionAlgs the algorithms of private_key_jwt.
var (
	clientEndpointAuthMethods = []string{AuthMethodBasic, AuthMethodPost, AuthMethodPrivateKeyJWT, AuthMethodTLSClient}
	assertionAlgs             = []string{string(jose.ES256), string(jose.RS256), string(jose.EdDSA)}
)

// NewMetadata returns the discovery document of the service at publicURL
// (SKYGATE_PUBLIC_URL, which is also the issuer; a trailing slash is dropped).
func NewMetadata(publicURL string) *Metadata {
	base := strings.TrimRight(publicURL, "/")
	return &Metadata{
		Issuer:                            base,
		AuthorizationEndpoint:             base + AuthorizationPath,
		TokenEndpoint:                     base + TokenPath,
		JWKSURI:                           base + JWKSPath,
		ScopesSupported:                   append([]string(nil), skygate.AllScopes...),
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{GrantClientCredentials, GrantAuthorizationCode},
		TokenEndpointAuthMethodsSupported: []string{AuthMethodBasic, AuthMethodPost, AuthMethodPrivateKeyJWT, AuthMethodTLSClient, "none"}, // none: the admin console, a public PKCE client
		CodeChallengeMethodsSupported:     []string{"S256"},
		SubjectTypesSupported:             []string{"public"},
		IDTokenSigningAlgValuesSupported:  []string{"ES256"},

		TLSClientCertificateBoundAccessTokens: true,

		TokenEndpointAuthSigningAlgValuesSupported: slices.Clone(assertionAlgs),

		RevocationEndpoint:                                 base + RevocationPath,
		RevocationEndpointAuthMethodsSupported:             slices.Clone(clientEndpointAuthMethods),
		RevocationEndpointAuthSigningAlgValuesSupported:    slices.Clone(assertionAlgs),
		IntrospectionEndpoint:                              base + IntrospectionPath,
		IntrospectionEndpointAuthMethodsSupported:          slices.Clone(clientEndpointAuthMethods),
		IntrospectionEndpointAuthSigningAlgValuesSupported: slices.Clone(assertionAlgs),
	}
}

// DiscoveryHandler serves the discovery document of publicURL, encoded once, for both
// OpenIDConfigPath and ServerMetadataPath.
func DiscoveryHandler(publicURL string) http.Handler {
	body, _ := json.Marshal(NewMetadata(publicURL)) // strings only: cannot fail
	return publicJSON(func() []byte { return body })
}

// publicJSON serves the JSON document body returns, which clients may cache for 5
// minutes.
func publicJSON(body func() []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body())
	})
}

// thumbprint returns the RFC 7638 JWK thumbprint of pub (SHA-256, base64url): its kid.
func thumbprint(pub *ecdsa.PublicKey) (string, error) {
	sum, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(sum), err
}

// JWKS returns the JWK Set of every key that may have signed a live token: keys not
// yet active, the current key, and retired keys until their retention has passed. The
// bytes are computed by Reload, Rotate and EnsureKey; the caller must not modify them.
func (m *KeyManager) JWKS() []byte { return m.set.Load().jwks }

// JWKSHandler serves JWKS at GET /.well-known/jwks.json. Verifiers may cache it for 5
// minutes, which is why a rotation must pre-publish a key for longer than that.
func (m *KeyManager) JWKSHandler() http.Handler { return publicJSON(m.JWKS) }
