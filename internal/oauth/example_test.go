package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

// Example wires the identity component the way cmd/skygate does: one master key, one
// KeyManager per process over the shared store, and an Issuer and a Verifier on top.
func Example() {
	ctx := context.Background()
	box, err := seal.New(seal.NewMasterKey()) // SKYGATE_MASTER_KEY in production
	if err != nil {
		log.Fatal(err)
	}
	var store skygate.KeyStore = newMemKeyStore() // the SQL store in production
	keys := oauth.NewKeyManager(store, box, time.Now, oauth.KeyManagerOptions{MaxTokenTTL: time.Hour})
	if err := keys.EnsureKey(ctx); err != nil {
		log.Fatal(err)
	}
	// Every replica then runs keys.Maintain periodically, with the other background work:
	// lifecycle.Every("signing keys", time.Minute, logger, keys.Maintain)

	const publicURL = "https://api.skygate.example"
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: publicURL, TTL: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	verifier, err := oauth.NewVerifier(keys, oauth.VerifierConfig{Issuer: publicURL})
	if err != nil {
		log.Fatal(err)
	}

	token, _, err := issuer.Issue(oauth.Claims{
		Subject: "client-1", ClientID: "client-1", AccountID: "acct-1",
		Scopes: []string{skygate.ScopeCatalogLoungesRead},
	})
	if err != nil {
		log.Fatal(err)
	}
	claims, err := verifier.Verify(ctx, token)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(claims.AccountID, claims.Scopes, claims.HasScope(skygate.ScopeBookingWrite))

	// The HTTP layer maps the two error families to 403 and 401.
	_, err = verifier.Verify(ctx, token+"x")
	fmt.Println(errors.Is(err, oauth.ErrInvalidToken), errors.Is(err, oauth.ErrWrongAudience))
	// Output:
	// acct-1 [catalog.lounges:read] false
	// true false
}
