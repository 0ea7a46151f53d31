package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
)

// KeyManagerOptions tune a KeyManager. Zero values take the defaults.
type KeyManagerOptions struct {
	// MaxTokenTTL is the longest lifetime of any token the keys sign, B2B or employee
	// (default 1h). A retired key stays published this long, plus keyLeeway, after it
	// stopped signing.
	MaxTokenTTL time.Duration
}

const (
	// keyLeeway is added to MaxTokenTTL. It covers the verifiers' clock leeway and the
	// interval at which replicas Reload, because a replica keeps signing with the old
	// key until its next Reload.
	keyLeeway = 5 * time.Minute
	// missReloadInterval is the least time between two reloads caused by tokens with
	// an unknown kid, so that garbage kids cannot hammer the store.
	missReloadInterval = 5 * time.Second
)

// KeyManager holds the ES256 signing keys, shared by all replicas through a
// skygate.KeyStore. Private keys are stored as PKCS#8 sealed by the master Box with
// the kid as associated data. Keys are ordered by ActiveAt; the signing key is the one
// with the latest ActiveAt that is not after now.
//
// A KeyManager starts empty: call EnsureKey once at startup and Maintain (or Reload
// and Prune) periodically. All methods are safe for concurrent use.
type KeyManager struct {
	store     skygate.KeyStore
	box       *seal.Box
	clock     skygate.Clock
	maxTTL    time.Duration
	retention time.Duration

	set      atomic.Pointer[keySet]
	reloadMu sync.Mutex // serializes reads of the store so a snapshot never goes back
	missMu   sync.Mutex // one reload for a burst of unknown kids
	lastMiss time.Time  // guarded by missMu
}

// signingKey is one decrypted key and its signer.
type signingKey struct {
	kid      string
	priv     *ecdsa.PrivateKey
	pub      *ecdsa.PublicKey
	activeAt time.Time
	jwk      jose.JSONWebKey // public, as the JWKS publishes it
	// signer signs ES256 with the header {"alg":"ES256","kid":kid,"typ":"at+jwt"}.
	signer jose.Signer
}

// keySet is an immutable snapshot of the keys, replaced as a whole on Reload.
type keySet struct {
	keys  []*signingKey // ActiveAt ascending, then kid
	byKID map[string]*signingKey
	jwks  []byte
}

// NewKeyManager returns an empty KeyManager over store. box is the master Box; clock
// may be nil for time.Now.
func NewKeyManager(store skygate.KeyStore, box *seal.Box, clock skygate.Clock, opts KeyManagerOptions) *KeyManager {
	if clock == nil {
		clock = time.Now
	}
	if opts.MaxTokenTTL <= 0 {
		opts.MaxTokenTTL = time.Hour
	}
	m := &KeyManager{store: store, box: box, clock: clock,
		maxTTL: opts.MaxTokenTTL, retention: opts.MaxTokenTTL + keyLeeway}
	m.set.Store(m.newKeySet(nil, clock()))
	return m
}

// EnsureKey loads the keys and, when none is active now, creates one that is active
// at once. Replicas that start together may each create one; that is harmless: all are
// published, the latest ActiveAt signs, and the others are pruned in due course.
func (m *KeyManager) EnsureKey(ctx context.Context) error {
	if err := m.Reload(ctx); err != nil {
		return err
	}
	now := m.clock()
	if m.set.Load().signer(now) != nil {
		return nil
	}
	rec, err := m.newRecord(now, now)
	if err != nil {
		return err
	}
	if err := m.store.CreateSigningKey(ctx, rec); err != nil && !skygate.IsCode(err, skygate.CodeConflict) {
		return fmt.Errorf("oauth: create signing key: %w", err)
	}
	return m.Reload(ctx)
}

// Rotate creates a key that is published at once and signs from now+prepublish. With a
// prepublish longer than the JWKS cache lifetime (5m) and the replicas' reload interval,
// every verifier knows the key before the first token it signs. The key is stored
// even when the reload that follows fails; the error says so.
func (m *KeyManager) Rotate(ctx context.Context, prepublish time.Duration) (*skygate.SigningKey, error) {
	if prepublish < 0 {
		return nil, errors.New("oauth: negative prepublish")
	}
	now := m.clock()
	rec, err := m.newRecord(now, now.Add(prepublish))
	if err != nil {
		return nil, err
	}
	if err := m.store.CreateSigningKey(ctx, rec); err != nil {
		return nil, fmt.Errorf("oauth: create signing key: %w", err)
	}
	return rec, m.Reload(ctx)
}

// Reload reads every key from the store, decrypts the new ones and swaps the snapshot
// used for signing, verification and the JWKS. A key that does not decrypt (a wrong
// master key) fails the whole reload and keeps the previous snapshot.
func (m *KeyManager) Reload(ctx context.Context) error {
	m.reloadMu.Lock()
	defer m.reloadMu.Unlock()
	recs, err := m.store.SigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("oauth: load signing keys: %w", err)
	}
	old := m.set.Load()
	keys := make([]*signingKey, 0, len(recs))
	for _, rec := range recs {
		if k := old.byKID[rec.ID]; k != nil && k.activeAt.Equal(rec.ActiveAt) {
			keys = append(keys, k)
			continue
		}
		k, err := m.openKey(rec)
		if err != nil {
			return fmt.Errorf("oauth: signing key %q: %w", rec.ID, err)
		}
		keys = append(keys, k)
	}
	m.set.Store(m.newKeySet(keys, m.clock()))
	return nil
}

// Prune deletes the keys whose retention has passed: a successor became active more
// than MaxTokenTTL+keyLeeway ago, so no live token carries them. It returns their kids.
func (m *KeyManager) Prune(ctx context.Context) ([]string, error) {
	recs, err := m.store.SigningKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: load signing keys: %w", err)
	}
	slices.SortStableFunc(recs, func(a, b *skygate.SigningKey) int {
		return compareKeys(a.ActiveAt, b.ActiveAt, a.ID, b.ID)
	})
	now := m.clock()
	var dead []string
	for i := range recs {
		if i+1 < len(recs) && m.expired(recs[i+1].ActiveAt, now) {
			dead = append(dead, recs[i].ID)
		}
	}
	if len(dead) == 0 {
		return nil, nil
	}
	if err := m.store.DeleteSigningKeys(ctx, dead); err != nil {
		return nil, fmt.Errorf("oauth: delete signing keys: %w", err)
	}
	return dead, m.Reload(ctx)
}

// Maintain calls Reload, then Prune, and returns their errors joined. Every replica
// calls it periodically (cmd/skygate through lifecycle.Every), at an interval shorter
// than the rotation prepublish and than keyLeeway (5m).
func (m *KeyManager) Maintain(ctx context.Context) error {
	reloadErr := m.Reload(ctx)
	_, pruneErr := m.Prune(ctx)
	return errors.Join(reloadErr, pruneErr)
}

// verificationKey returns the key with kid. An unknown kid triggers one reload (shared
// by concurrent callers, at most one per missReloadInterval) so that a key another
// replica just created is found. It returns nil when the kid stays unknown, which
// includes a store that cannot be read at that moment.
func (m *KeyManager) verificationKey(ctx context.Context, kid string) *signingKey {
	if k := m.set.Load().byKID[kid]; k != nil {
		return k
	}
	m.missMu.Lock()
	defer m.missMu.Unlock()
	if k := m.set.Load().byKID[kid]; k != nil {
		return k // a reload finished while we waited
	}
	now := m.clock()
	if since := now.Sub(m.lastMiss); !m.lastMiss.IsZero() && since >= 0 && since < missReloadInterval {
		return nil
	}
	m.lastMiss = now
	// The reload serves every waiting request: do not let this caller's cancellation
	// cut it short, but do not let a hung store hold them all either.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.Reload(ctx); err != nil {
		return nil
	}
	return m.set.Load().byKID[kid]
}

// signer returns the key that signs at now, or nil.
func (s *keySet) signer(now time.Time) *signingKey {
	for i := len(s.keys) - 1; i >= 0; i-- {
		if !s.keys[i].activeAt.After(now) {
			return s.keys[i]
		}
	}
	return nil
}

// expired reports whether a key whose successor became active at supersededAt can no
// longer have signed a live token.
func (m *KeyManager) expired(supersededAt, now time.Time) bool {
	return !now.Before(supersededAt.Add(m.retention))
}

func (m *KeyManager) newKeySet(keys []*signingKey, now time.Time) *keySet {
	slices.SortStableFunc(keys, func(a, b *signingKey) int {
		return compareKeys(a.activeAt, b.activeAt, a.kid, b.kid)
	})
	s := &keySet{
		keys:  keys,
		byKID: make(map[string]*signingKey, len(keys)),
	}
	published := []jose.JSONWebKey{}
	for i, k := range keys {
		s.byKID[k.kid] = k
		if i+1 == len(keys) || !m.expired(keys[i+1].activeAt, now) {
			published = append(published, k.jwk)
		}
	}
	s.jwks, _ = json.Marshal(jose.JSONWebKeySet{Keys: published}) // P-256 public keys: cannot fail
	return s
}

// compareKeys orders keys by ActiveAt and then kid, so that every replica picks the
// same signer even when two keys share an ActiveAt.
func compareKeys(at1, at2 time.Time, kid1, kid2 string) int {
	if c := at1.Compare(at2); c != 0 {
		return c
	}
	return strings.Compare(kid1, kid2)
}

// newRecord generates a P-256 key and its sealed store record.
func (m *KeyManager) newRecord(now, activeAt time.Time) (*skygate.SigningKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	kid, err := thumbprint(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	// Microseconds: what every engine stores without rounding.
	return &skygate.SigningKey{
		ID:            kid,
		PrivateKeyEnc: m.box.Seal(pkcs8, keyAD(kid)),
		PublicKeyDER:  pubDER,
		CreatedAt:     now.UTC().Truncate(time.Microsecond),
		ActiveAt:      activeAt.UTC().Truncate(time.Microsecond),
	}, nil
}

// openKey decrypts and checks a stored key.
func (m *KeyManager) openKey(rec *skygate.SigningKey) (*signingKey, error) {
	pkcs8, err := m.box.Open(rec.PrivateKeyEnc, keyAD(rec.ID))
	if err != nil {
		return nil, err
	}
	parsed, err := x509.ParsePKCS8PrivateKey(pkcs8)
	if err != nil {
		return nil, err
	}
	priv, ok := parsed.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 key")
	}
	pub, err := x509.ParsePKIXPublicKey(rec.PublicKeyDER)
	if err != nil {
		return nil, err
	}
	if !priv.PublicKey.Equal(pub) {
		return nil, errors.New("public key does not match the private key")
	}
	// The stored kid is authoritative: it is what tokens carry.
	j := jose.JSONWebKey{Key: &priv.PublicKey, KeyID: rec.ID, Algorithm: "ES256", Use: "sig"}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: priv, KeyID: rec.ID}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		return nil, err
	}
	return &signingKey{
		kid: rec.ID, priv: priv, pub: &priv.PublicKey, activeAt: rec.ActiveAt, jwk: j, signer: signer,
	}, nil
}

// keyAD binds a sealed private key to its kid, so that a row's key cannot be swapped
// for another one.
func keyAD(kid string) []byte { return []byte("skygate/signing-key/" + kid) }
