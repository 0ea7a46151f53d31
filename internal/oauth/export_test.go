package oauth

import "crypto/ecdsa"

// PrivateKey returns the decrypted private key with kid, for tests that sign tokens
// with other libraries.
func (m *KeyManager) PrivateKey(kid string) *ecdsa.PrivateKey {
	if k := m.set.Load().byKID[kid]; k != nil {
		return k.priv
	}
	return nil
}

// CurrentKID returns the kid that signs at the KeyManager's current time.
func (m *KeyManager) CurrentKID() string {
	if k := m.set.Load().signer(m.clock()); k != nil {
		return k.kid
	}
	return ""
}

// CacheLen returns the number of cached verifications.
func (v *Verifier) CacheLen() int {
	if v.cache == nil {
		return 0
	}
	return v.cache.len()
}
