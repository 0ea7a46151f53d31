package clientca

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
)

// MaxPEM bounds a CSR or certificate a partner sends; real ones are a few KiB.
const MaxPEM = 64 << 10

// InputError is a problem with a partner's CSR or certificate. Message completes a
// sentence whose subject is the field ("is not valid PEM") and is safe to show.
type InputError struct {
	Message string
}

func (e *InputError) Error() string { return e.Message }

func inputErrorf(format string, args ...any) error {
	return &InputError{Message: fmt.Sprintf(format, args...)}
}

// decodeOne returns the single PEM block of data, refusing anything around it (text
// before, a second block, junk after), PEM headers and a block of another type than
// types.
func decodeOne(data []byte, types ...string) (*pem.Block, error) {
	if len(data) > MaxPEM {
		return nil, inputErrorf("is larger than %d KiB", MaxPEM>>10)
	}
	text := bytes.TrimSpace(data)
	if !bytes.HasPrefix(text, []byte("-----BEGIN ")) {
		return nil, inputErrorf("must be one PEM block (-----BEGIN %s-----) with nothing before it", types[0])
	}
	block, rest := pem.Decode(text)
	if block == nil {
		return nil, inputErrorf("is not valid PEM")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		if next, _ := pem.Decode(rest); next != nil {
			return nil, inputErrorf("holds more than one PEM block; send only the %s", types[0])
		}
		return nil, inputErrorf("has data after the PEM block")
	}
	if !slices.Contains(types, block.Type) {
		return nil, inputErrorf("is a PEM %q block, want %q", block.Type, types[0])
	}
	if len(block.Headers) > 0 {
		return nil, inputErrorf("has PEM headers; send the block without them")
	}
	return block, nil
}

// checkKey accepts the public keys partners may use: ECDSA on P-256 or P-384, RSA of
// 2048 to 8192 bits, and Ed25519.
func checkKey(pub any) error {
	const use = "use ECDSA P-256 or P-384, RSA of 2048 to 8192 bits, or Ed25519"
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() || k.Curve == elliptic.P384() {
			return nil
		}
		return inputErrorf("has an ECDSA key on %s; %s", k.Curve.Params().Name, use)
	case *rsa.PublicKey:
		if n := k.N.BitLen(); n < 2048 || n > 8192 {
			return inputErrorf("has a %d-bit RSA key; %s", n, use)
		}
		return nil
	case ed25519.PublicKey:
		return nil
	default:
		return inputErrorf("has an unsupported public key; %s", use)
	}
}

// ParsePrivateKey reads a CA's private key: one PEM block holding PKCS#8 ("PRIVATE
// KEY"), SEC 1 ("EC PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY"). Encrypted keys are
// refused.
func ParsePrivateKey(data []byte) (crypto.Signer, error) {
	block, err := decodeOne(data, "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY")
	if err != nil {
		return nil, fmt.Errorf("clientca: the CA key %w", err)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("clientca: the CA key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("clientca: the CA key is a %T, which cannot sign", key)
	}
	return signer, nil
}

// CAFor returns the certificate of bundle (PEM CERTIFICATE blocks, other blocks
// ignored) whose public key is key's: the CA certificate that key signs for.
func CAFor(bundle []byte, key crypto.Signer) (*x509.Certificate, error) {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	pub, ok := key.Public().(equaler)
	if !ok {
		return nil, fmt.Errorf("clientca: cannot compare a %T", key.Public())
	}
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("clientca: no certificate of the client CA bundle has the CA key's public key")
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("clientca: the client CA bundle: %w", err)
		}
		if pub.Equal(cert.PublicKey) {
			return cert, nil
		}
	}
}
