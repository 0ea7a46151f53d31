package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/postgres"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/sqlite"
)

// scTokenPrivateKeyJWT is POST /oauth/v2/token, client_credentials authenticated by
// private_key_jwt (RFC 7523): each request a fresh ES256 client assertion with a new
// jti, signed by the load generator, so every request also records its jti.
const scTokenPrivateKeyJWT = "token-private-key-jwt"

// privateKeyJWTLoad registers a new ES256 key as the benchmark application's JWK Set
// and returns the load that signs an assertion per request.
func (h *harness) privateKeyJWTLoad(ctx context.Context, s *server) (httpLoad, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return httpLoad{}, err
	}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "bench", Algorithm: string(jose.ES256)}}})
	if err != nil {
		return httpLoad{}, err
	}
	if err := registerJWKS(ctx, s.databaseURL, s.creds.ClientID, jwks); err != nil {
		return httpLoad{}, fmt.Errorf("register the JWK Set: %w", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "bench"))
	if err != nil {
		return httpLoad{}, err
	}
	tokenURL := s.http + oauth.TokenPath
	aud := jwt.Audience{benchPublicURL + oauth.TokenPath}
	var seq atomic.Int64
	run := time.Now().UnixNano()
	clientID := s.creds.ClientID
	l := httpLoad{want: http.StatusOK, targeter: func() vegeta.Targeter {
		return func(t *vegeta.Target) error {
			now := time.Now()
			assertion, err := jwt.Signed(signer).Claims(jwt.Claims{
				Issuer: clientID, Subject: clientID, Audience: aud, IssuedAt: jwt.NewNumericDate(now),
				Expiry: jwt.NewNumericDate(now.Add(time.Minute)), ID: fmt.Sprintf("bench-%x-%d", run, seq.Add(1)),
			}).Serialize()
			if err != nil {
				return err
			}
			t.Method, t.URL = http.MethodPost, tokenURL
			t.Body = []byte(url.Values{"grant_type": {"client_credentials"},
				"client_assertion_type": {oauth.ClientAssertionType}, "client_assertion": {assertion}}.Encode())
			t.Header = http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
			return nil
		}
	}}
	// One request outside the load proves the setup before any phase counts.
	var first vegeta.Target
	if err := l.targeter()(&first); err != nil {
		return httpLoad{}, err
	}
	if _, err := fetchToken(ctx, s.plain, first); err != nil {
		return httpLoad{}, err
	}
	return l, nil
}

// registerJWKS sets jwks as the JWK Set of the application of clientID through the
// identity service, the way the admin API does, on the server's database opened as a
// second process (as seedESIM does).
func registerJWKS(ctx context.Context, databaseURL, clientID string, jwks []byte) error {
	master, err := config.ParseMasterKey(benchMasterKey)
	if err != nil {
		return err
	}
	box, err := seal.New(master)
	if err != nil {
		return err
	}
	records, err := seal.New(box.DeriveKey(seal.PurposeStoreRecords))
	if err != nil {
		return err
	}
	var st skygate.Store
	if path, ok := strings.CutPrefix(databaseURL, "sqlite://"); ok {
		st, err = sqlite.Open(ctx, path, records, nil)
	} else {
		st, err = postgres.Open(ctx, databaseURL, 0, records, nil)
	}
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }() // the registration's own error is checked
	app, _, err := st.ApplicationByClientID(ctx, clientID)
	if err != nil {
		return err
	}
	svc := identity.New(identity.Config{Store: st, Secrets: oauth.NewSecretHasher(box)})
	_, err = svc.PatchApplication(ctx, skygate.Actor{Subject: "skygate-bench"},
		identity.ApplicationPatch{ApplicationID: app.ID, JWKS: jwks})
	return err
}
