package oauth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

// jwksKIDs returns the kids in m's JWKS, sorted.
func jwksKIDs(tb testing.TB, m *oauth.KeyManager) []string {
	tb.Helper()
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(m.JWKS(), &set); err != nil {
		tb.Fatal(err)
	}
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k["kid"])
	}
	slices.Sort(kids)
	return kids
}

func sorted(s ...string) []string { return slices.Sorted(slices.Values(s)) }

func TestEnsureKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	kid := f.keys.CurrentKID()
	if kid == "" {
		t.Fatal("no current key after EnsureKey")
	}
	// Idempotent, and a second replica adopts the existing key.
	MustEnsureKey(t, f.keys)
	r := f.replica(t)
	MustEnsureKey(t, r)
	if got := f.keyStore.kids(); !slices.Equal(got, []string{kid}) {
		t.Fatalf("store kids = %v", got)
	}
	if r.CurrentKID() != kid {
		t.Errorf("replica signs with %q, want %q", r.CurrentKID(), kid)
	}
	stored := f.keyStoreKey(t)
	if !stored.ActiveAt.Equal(f.clock.Now()) || len(stored.PublicKeyDER) == 0 {
		t.Errorf("stored key = %+v", stored)
	}
	if _, err := x509.ParsePKCS8PrivateKey(stored.PrivateKeyEnc); err == nil || stored.PrivateKeyEnc[0] != 1 {
		t.Error("the private key is not sealed")
	}
}

// TestEnsureKeyConcurrent starts several replicas on an empty store at once: each may
// create a key, and after a reload they all sign with the same one and verify each
// other's tokens.
func TestEnsureKeyConcurrent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.keyStore = newMemKeyStore()
	replicas := make([]*oauth.KeyManager, 6)
	var wg sync.WaitGroup
	for i := range replicas {
		replicas[i] = f.replica(t)
		wg.Go(func() { MustEnsureKey(t, replicas[i]) })
	}
	wg.Wait()
	var toks []string
	for _, r := range replicas {
		toks = append(toks, MustIssueWith(t, MustIssuer(t, r, oauth.IssuerConfig{Issuer: testIssuer, Clock: f.clock.Now})))
	}
	for _, r := range replicas {
		if err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r.CurrentKID() != replicas[0].CurrentKID() {
			t.Fatal("replicas disagree on the signing key after reload")
		}
		v := MustVerifier(t, r, oauth.VerifierConfig{Issuer: testIssuer, Clock: f.clock.Now})
		for _, tok := range toks {
			MustVerify(t, v, tok)
		}
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	oldKID := f.keys.CurrentKID()
	oldTok := f.MustIssue(t)
	uncached := MustVerifier(t, f.keys, oauth.VerifierConfig{Issuer: testIssuer, Clock: f.clock.Now, CacheSize: -1})

	newKID := MustRotate(t, f.keys, 10*time.Minute)
	if got, want := jwksKIDs(t, f.keys), sorted(oldKID, newKID); !slices.Equal(got, want) {
		t.Fatalf("JWKS right after Rotate = %v, want %v", got, want)
	}
	if h, _, _ := tokenParts(t, f.MustIssue(t)); h["kid"] != oldKID {
		t.Fatalf("signed with %v during prepublish", h["kid"])
	}

	f.clock.Advance(10 * time.Minute)
	newTok := f.MustIssue(t)
	if h, _, _ := tokenParts(t, newTok); h["kid"] != newKID {
		t.Fatalf("signed with %v after prepublish, want %v", h["kid"], newKID)
	}
	MustVerify(t, uncached, oldTok)
	MustVerify(t, uncached, newTok)
	if err := f.keys.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := jwksKIDs(t, f.keys), sorted(oldKID, newKID); !slices.Equal(got, want) {
		t.Fatalf("JWKS after activation = %v, want %v", got, want)
	}

	// The old key stays until MaxTokenTTL + Leeway (1h + 5m) after it was superseded.
	f.clock.Advance(testTTL + 5*time.Minute - time.Second)
	if dead, err := f.keys.Prune(ctx); err != nil || len(dead) != 0 {
		t.Fatalf("Prune before retention = %v, %v", dead, err)
	}
	f.clock.Advance(time.Second)
	if err := f.keys.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := jwksKIDs(t, f.keys); !slices.Equal(got, []string{newKID}) {
		t.Fatalf("JWKS after retention = %v", got)
	}
	dead, err := f.keys.Prune(ctx)
	if err != nil || !slices.Equal(dead, []string{oldKID}) {
		t.Fatalf("Prune = %v, %v", dead, err)
	}
	if got := f.keyStore.kids(); !slices.Equal(got, []string{newKID}) {
		t.Fatalf("store after Prune = %v", got)
	}
	if f.keys.CurrentKID() != newKID {
		t.Fatal("Prune changed the signing key")
	}
}

func TestRotateNegative(t *testing.T) {
	t.Parallel()
	f := setup(t)
	if _, err := f.keys.Rotate(context.Background(), -time.Second); err == nil {
		t.Fatal("Rotate accepted a negative prepublish")
	}
}

// TestOtherReplicaKey: a token signed by a key that another replica created a moment
// ago verifies here, through the reload that an unknown kid triggers.
func TestOtherReplicaKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other := f.replica(t)
	MustEnsureKey(t, other)
	f.clock.Advance(time.Second) // else the two keys share an ActiveAt and the kid decides
	MustRotate(t, other, 0)
	otherIssuer := MustIssuer(t, other, oauth.IssuerConfig{Issuer: testIssuer, Clock: f.clock.Now})
	tok := MustIssueWith(t, otherIssuer)
	if other.CurrentKID() == f.keys.CurrentKID() {
		t.Fatal("test needs the replicas to disagree")
	}
	MustVerify(t, f.verifier, tok)
}

// TestUnknownKIDReloadLimit: a flood of unknown kids causes one store read per
// MissReloadInterval, not one per token.
func TestUnknownKIDReloadLimit(t *testing.T) {
	t.Parallel()
	f := setup(t)
	priv := f.keys.PrivateKey(f.keys.CurrentKID())
	tok := signES256(t, priv, with(f.validHeader(), map[string]any{"kid": "nope"}), f.validClaims())
	before := f.keyStore.loads.Load()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := f.verifier.Verify(context.Background(), tok); !errors.Is(err, oauth.ErrInvalidToken) {
				t.Errorf("err = %v", err)
			}
		})
	}
	wg.Wait()
	if n := f.keyStore.loads.Load() - before; n != 1 {
		t.Fatalf("%d store reads for 50 unknown kids, want 1", n)
	}
	f.clock.Advance(5 * time.Second)
	f.verifier.Verify(context.Background(), tok)
	if n := f.keyStore.loads.Load() - before; n != 2 {
		t.Fatalf("%d store reads after the interval, want 2", n)
	}
}

func TestReloadWrongMasterKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	box, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	m := oauth.NewKeyManager(f.keyStore, box, f.clock.Now, oauth.KeyManagerOptions{})
	if err := m.Reload(context.Background()); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("Reload with the wrong master key: %v", err)
	}
	if err := m.EnsureKey(context.Background()); err == nil {
		t.Fatal("EnsureKey with the wrong master key succeeded")
	}
}

// TestSwappedPrivateKey: a stored private key moved to another row does not open,
// because the kid is the associated data.
func TestSwappedPrivateKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.keyStoreKey(t)
	MustRotate(t, f.keys, time.Hour)
	recs, _ := f.keyStore.SigningKeys(context.Background())
	b := recs[len(recs)-1]
	b.PrivateKeyEnc = a.PrivateKeyEnc
	store := newMemKeyStore()
	if err := store.CreateSigningKey(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	m := oauth.NewKeyManager(store, f.box, f.clock.Now, oauth.KeyManagerOptions{})
	if err := m.Reload(context.Background()); err == nil {
		t.Fatal("a swapped private key loaded")
	}
}
