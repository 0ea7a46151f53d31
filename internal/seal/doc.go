// Package seal owns secrets at rest: it encrypts small values (signing private keys,
// webhook secrets) with a key derived from the operator's master key, and derives
// independent subkeys for the other keyed primitives of the service.
//
// The master key (SKYGATE_MASTER_KEY) is 32 random bytes. It never touches data
// directly: the AES-256-GCM key of a Box and every DeriveKey result come out of
// HKDF-SHA256 with distinct info strings, so a subkey handed to one package reveals
// nothing about the others or about the sealed data.
//
// Sealed values have the layout
//
//	version (1 byte, currently 1) || nonce (12 random bytes) || AES-GCM ciphertext+tag
//
// The version byte lets a later release change the algorithm and still open old rows.
// Random 96-bit nonces are safe for far more values than a service stores (the usual
// bound is 2^32 messages per key).
//
// A package that needs its own encryption key gets a separate Box from a subkey:
//
//	webhookBox, err := seal.New(master.DeriveKey(seal.PurposeWebhookSecret))
package seal
