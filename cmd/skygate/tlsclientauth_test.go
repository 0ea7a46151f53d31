package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/devpki"
)

// TestTLSClientAuth: an application bound to a client certificate gets a token on the
// mutual-TLS listener with its client_id and that certificate, no secret (RFC 8705
// §2.1, x/oauth2's clientcredentials with the id in the body). The token carries
// cnf.x5t#S256 of the certificate and the RFC 9068 claims, and works on a booking
// route. The plain listener (no certificate), the mutual-TLS listener without a
// certificate or with another one of the client CA, an unbound application and an
// unknown client_id are all 401 invalid_client; the bound application's secret still
// works.
func TestTLSClientAuth(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		pki := devpki.Paths(filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"))
		certPEM, err := os.ReadFile(pki.ClientCert)
		if err != nil {
			t.Fatal(err)
		}
		x5t := thumbprintOfPEM(t, certPEM)
		bound := s.mustBootstrap("tls-bound", skygate.B2BScopes, "--client-cert-sha256", x5t)
		unbound := s.mustBootstrap("tls-unbound", catalogScopes)

		ca, caKey, err := devpki.LoadCA(pki)
		if err != nil {
			t.Fatal(err)
		}
		otherCert, otherKey, err := devpki.NewClientCert(ca, caKey, time.Now(), "another partner")
		if err != nil {
			t.Fatal(err)
		}
		tr := s.tlsTransport(false)
		tr.TLSClientConfig.Certificates = []tls.Certificate{{Certificate: [][]byte{otherCert.Raw}, PrivateKey: otherKey}}
		otherClient := &http.Client{Transport: newValidatingTransport(t, tr, s.base, s.mtlsBase)}

		token := func(client *http.Client, base, clientID, scope string) (*oauth2.Token, error) {
			cfg := clientcredentials.Config{ClientID: clientID, TokenURL: base + "/oauth/v2/token",
				AuthStyle: oauth2.AuthStyleInParams}
			if scope != "" {
				cfg.Scopes = []string{scope}
			}
			return cfg.Token(context.WithValue(t.Context(), oauth2.HTTPClient, client))
		}

		tok, err := token(s.mtlsClient, s.mtlsBase, bound.ClientID, "")
		if err != nil {
			t.Fatalf("tls_client_auth with the bound certificate: %v", err)
		}
		claims := verifiedClaims(t, s, tok.AccessToken)
		if claims.Cnf["x5t#S256"] != x5t || claims.ClientID != bound.ClientID || claims.Sub != bound.ClientID ||
			claims.AccountID != bound.AccountID || claims.Scope != strings.Join(claims.Scopes, " ") ||
			!slices.Equal(claims.Scopes, skygate.B2BScopes) {
			t.Errorf("claims %+v: want cnf.x5t#S256 %s, client_id %s and scope the scopes joined", claims, x5t, bound.ClientID)
		}
		if resp, body := s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+bookingPath, nil,
			map[string]string{"Authorization": "Bearer " + tok.AccessToken}); resp.StatusCode != http.StatusOK {
			t.Errorf("booking with the token over mutual TLS: %d %s", resp.StatusCode, body)
		}
		narrowed, err := token(s.mtlsClient, s.mtlsBase, bound.ClientID, skygate.ScopeCatalogLoungesRead)
		if err != nil || narrowed.Extra("scope") != skygate.ScopeCatalogLoungesRead {
			t.Errorf("tls_client_auth with a scope: %v, scope %v", err, narrowed)
		}

		for _, refused := range []struct {
			name, base, clientID string
			client               *http.Client
		}{
			{"plain listener", s.base, bound.ClientID, s.client},
			{"mutual TLS without a certificate", s.mtlsBase, bound.ClientID, s.noCertClient},
			{"mutual TLS with another certificate of the client CA", s.mtlsBase, bound.ClientID, otherClient},
			{"an application bound to no certificate", s.mtlsBase, unbound.ClientID, s.mtlsClient},
			{"an unknown client_id", s.mtlsBase, "sk_app_unknown", s.mtlsClient},
		} {
			_, err := token(refused.client, refused.base, refused.clientID, "")
			re, ok := errors.AsType[*oauth2.RetrieveError](err)
			if !ok || re.Response.StatusCode != http.StatusUnauthorized || re.ErrorCode != "invalid_client" {
				t.Errorf("%s: %v, want 401 invalid_client", refused.name, err)
			}
		}

		// The secret keeps working, on either listener.
		cfg := clientcredentials.Config{ClientID: bound.ClientID, ClientSecret: bound.ClientSecret, TokenURL: s.mtlsBase + "/oauth/v2/token"}
		if _, err := cfg.Token(context.WithValue(t.Context(), oauth2.HTTPClient, s.mtlsClient)); err != nil {
			t.Errorf("client_secret_basic over mutual TLS: %v", err)
		}
	})
}

// accessClaims are the claims of an access token that the identity tests look at.
type accessClaims struct {
	Sub       string            `json:"sub"`
	Aud       any               `json:"aud"`
	ClientID  string            `json:"client_id"`
	AccountID string            `json:"account_id"`
	Scope     string            `json:"scope"`
	Scopes    []string          `json:"scopes"`
	Cnf       map[string]string `json:"cnf"`
}

// verifiedClaims checks token's signature with go-jose against the server's JWKS, and
// its typ (RFC 9068 §2.1), and returns its claims.
func verifiedClaims(tb testing.TB, s *testServer, token string) *accessClaims {
	tb.Helper()
	resp, body := s.do(s.client, http.MethodGet, s.base+"/.well-known/jwks.json", nil, nil)
	var set jose.JSONWebKeySet
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &set) != nil {
		tb.Fatalf("JWKS: %d %s", resp.StatusCode, body)
	}
	jws, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		tb.Fatal(err)
	}
	if typ := jws.Signatures[0].Protected.ExtraHeaders[jose.HeaderType]; typ != "at+jwt" {
		tb.Errorf("typ %v, want at+jwt", typ)
	}
	keys := set.Key(jws.Signatures[0].Protected.KeyID)
	if len(keys) != 1 {
		tb.Fatalf("kid %q: %d keys in the JWKS", jws.Signatures[0].Protected.KeyID, len(keys))
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		tb.Fatal(err)
	}
	var c accessClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		tb.Fatal(err)
	}
	return &c
}
