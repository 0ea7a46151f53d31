package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// KeySize is the size of a master key in bytes.
const KeySize = 32

// Purposes for DeriveKey. Every consumer of a subkey uses one of these so that two
// packages never share a key by accident; a new purpose needs a new constant here.
const (
	// PurposeClientSecret keys the HMAC-SHA256 of OAuth client secrets.
	PurposeClientSecret = "oauth/client-secret-hmac/v1"
	// PurposeLoginState keys the signature of the employee-login state parameter.
	PurposeLoginState = "auth/login-state-hmac/v1"
	// PurposeWebhookSecret keys the Box that encrypts webhook signing secrets.
	PurposeWebhookSecret = "webhook/secret-aead/v1"
	// PurposeESIMMatchingID keys the Box that encrypts eSIM matching IDs (the secret
	// half of an activation code).
	PurposeESIMMatchingID = "esim/matching-id-aead/v1"
	// PurposeStoreRecords keys the Box that the stores seal rows' secrets with
	// (skygate.Sealer): passengers' personal data, and the fingerprint and body of
	// idempotency records. The associated data names the column and the row, so no
	// value opens in another column or row.
	PurposeStoreRecords = "store/records-aead/v1"
	// PurposeEventCursor keys the Box that seals the events API's cursors; the
	// associated data is the account id, so a cursor opens for its account only.
	PurposeEventCursor = "events/cursor-aead/v1"
	// PurposeESIMInstallLink keys the HMAC-SHA256 of eSIM install-page tokens
	// (internal/esim): rotating the master key revokes every install link at once.
	PurposeESIMInstallLink = "esim/install-link-hmac/v1"
)

const (
	version1  byte = 1
	nonceSize      = 12
	overhead       = 1 + nonceSize + 16 // version, nonce, GCM tag

	// Both prefixes are fixed and distinct, so no purpose string can produce the AEAD key.
	infoAEAD   = "skygate/seal/aead/aes-256-gcm/v1"
	infoDerive = "skygate/derive/"
)

// ErrOpen is returned (wrapped) by Open for every value it cannot decrypt: too short,
// unknown version, wrong key, wrong associated data or tampered bytes. The cases are
// deliberately not told apart.
var ErrOpen = errors.New("seal: cannot open sealed value")

// Box encrypts and decrypts with one master key. It is safe for concurrent use.
type Box struct {
	master []byte
	aead   cipher.AEAD
}

// New returns a Box for masterKey, which must be exactly KeySize random bytes. The
// slice is copied.
func New(masterKey []byte) (*Box, error) {
	if len(masterKey) != KeySize {
		return nil, fmt.Errorf("seal: master key must be %d bytes, got %d", KeySize, len(masterKey))
	}
	master := append([]byte(nil), masterKey...)
	key, err := hkdf.Key(sha256.New, master, nil, infoAEAD, 32)
	if err != nil {
		return nil, fmt.Errorf("seal: derive aead key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Box{master: master, aead: aead}, nil
}

// NewMasterKey returns KeySize fresh random bytes, suitable for New.
func NewMasterKey() []byte {
	k := make([]byte, KeySize)
	rand.Read(k) // never fails since Go 1.24; it crashes the program instead
	return k
}

// Seal encrypts plaintext and authenticates it together with associatedData, which is
// not stored: Open needs the same bytes. Callers bind a value to its place (for
// example the row id) through associatedData so that a sealed value copied to another
// row does not open. Every call uses a fresh random nonce.
func (b *Box) Seal(plaintext, associatedData []byte) []byte {
	out := make([]byte, 1+nonceSize, overhead+len(plaintext))
	out[0] = version1
	rand.Read(out[1 : 1+nonceSize])
	return b.aead.Seal(out, out[1:1+nonceSize], plaintext, b.ad(associatedData))
}

// Open decrypts a value made by Seal with the same master key and associatedData. Any
// failure wraps ErrOpen.
func (b *Box) Open(ciphertext, associatedData []byte) ([]byte, error) {
	if len(ciphertext) < overhead {
		return nil, fmt.Errorf("%w: too short", ErrOpen)
	}
	if ciphertext[0] != version1 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrOpen, ciphertext[0])
	}
	nonce, sealed := ciphertext[1:1+nonceSize], ciphertext[1+nonceSize:]
	plain, err := b.aead.Open(nil, nonce, sealed, b.ad(associatedData))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return plain, nil
}

// ad prefixes the caller's associated data with the version byte so that the version
// is authenticated as well.
func (b *Box) ad(associatedData []byte) []byte {
	ad := make([]byte, 0, 1+len(associatedData))
	return append(append(ad, version1), associatedData...)
}

// DeriveKey returns a 32-byte key for purpose, computed with HKDF-SHA256 from the
// master key. The same master key and purpose always give the same key, on every
// replica; different purposes give independent keys. Use the Purpose constants.
func (b *Box) DeriveKey(purpose string) []byte {
	k, err := hkdf.Key(sha256.New, b.master, nil, infoDerive+purpose, 32)
	if err != nil {
		// Only a length above 255*32 bytes can fail.
		panic("seal: hkdf: " + err.Error())
	}
	return k
}
