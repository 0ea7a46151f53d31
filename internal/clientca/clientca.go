package clientca

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Organization is the Subject O of every certificate the service issues; the Subject
// CN is the application's client_id.
const Organization = "Skygate partner"

// ClockSkew is how long before the moment of issue a certificate's validity starts, so
// that a partner whose clock runs a little behind can use it at once.
const ClockSkew = 5 * time.Minute

// ErrNoKey is Issue's error when the service does not hold the CA's key: the operator
// signs the partner's CSR with their CA, and the certificate is bound instead.
var ErrNoKey = errors.New("clientca: this service does not hold the client CA's key")

// Authority issues and checks client certificates for one client CA.
type Authority struct {
	roots *x509.CertPool
	ca    *x509.Certificate
	key   crypto.Signer
	ttl   time.Duration
}

// Config describes the client CA.
type Config struct {
	// Roots are the CAs a client certificate must chain to: the pool the mutual-TLS
	// listener verifies client certificates with.
	Roots *x509.CertPool
	// CA and Key sign issued certificates. Both are nil when the CA's key is kept
	// outside the service; then Issue returns ErrNoKey and only Check works.
	CA  *x509.Certificate
	Key crypto.Signer
	// TTL is the lifetime of an issued certificate, cut short at the CA's NotAfter.
	TTL time.Duration
}

// New returns the authority of c. CA must be a CA certificate whose public key is
// Key's.
func New(c Config) (*Authority, error) {
	if c.Roots == nil {
		return nil, errors.New("clientca: no client CA pool")
	}
	if c.TTL <= 0 {
		return nil, errors.New("clientca: the certificate lifetime must be positive")
	}
	a := &Authority{roots: c.Roots, ttl: c.TTL}
	if c.CA == nil && c.Key == nil {
		return a, nil
	}
	if c.CA == nil || c.Key == nil {
		return nil, errors.New("clientca: the CA certificate and its key go together")
	}
	if !c.CA.IsCA || c.CA.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, errors.New("clientca: the client CA certificate may not sign certificates (not a CA, or no keyCertSign usage)")
	}
	pub, ok := c.Key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(c.CA.PublicKey) {
		return nil, errors.New("clientca: the CA key does not belong to the client CA certificate")
	}
	a.ca, a.key = c.CA, c.Key
	return a, nil
}

// CanIssue reports whether the authority holds the CA's key, so that Issue can sign.
func (a *Authority) CanIssue() bool { return a.key != nil }

// Issue signs a client certificate for the public key of csrPEM, one PEM-encoded
// PKCS#10 request, whose signature must verify and whose key must be strong enough
// (ECDSA P-256 or P-384, RSA of 2048 to 8192 bits, Ed25519). Nothing else is taken from
// the request: the certificate is a leaf (CA false) for TLS client authentication
// only (key usage digitalSignature, extended key usage clientAuth) with Subject
// CN=clientID, O=Organization, no subject alternative names, a random 159-bit serial,
// valid from ClockSkew before now until now plus the TTL or the CA's own NotAfter,
// whichever is sooner. Problems of the request are *InputError; without the CA's key
// it returns ErrNoKey.
func (a *Authority) Issue(csrPEM []byte, clientID string, now time.Time) (*x509.Certificate, error) {
	if a.key == nil {
		return nil, ErrNoKey
	}
	block, err := decodeOne(csrPEM, "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST")
	if err != nil {
		return nil, err
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, inputErrorf("is not a valid PKCS#10 certificate signing request")
	}
	if !slices.Contains(strongSignatures, csr.SignatureAlgorithm) || csr.CheckSignature() != nil {
		return nil, inputErrorf("has a signature that does not verify: sign the request with the private key of the public key it carries (SHA-256 or stronger)")
	}
	if err := checkKey(csr.PublicKey); err != nil {
		return nil, err
	}
	notBefore := now.Add(-ClockSkew)
	if notBefore.Before(a.ca.NotBefore) {
		notBefore = a.ca.NotBefore
	}
	notAfter := now.Add(a.ttl)
	if notAfter.After(a.ca.NotAfter) {
		notAfter = a.ca.NotAfter
	}
	if !notAfter.After(now) {
		return nil, fmt.Errorf("clientca: the client CA certificate expired at %s", a.ca.NotAfter.UTC().Format(time.RFC3339))
	}
	// A nil SerialNumber makes CreateCertificate draw 159 random bits, as many as
	// RFC 5280's 20 octets hold.
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: clientID, Organization: []string{Organization}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  false,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.ca, csr.PublicKey, a.key)
	if err != nil {
		return nil, fmt.Errorf("clientca: sign: %w", err)
	}
	return x509.ParseCertificate(der)
}

// Check returns the certificate of certPEM, one PEM-encoded X.509 certificate signed
// elsewhere, when it may be bound to an application: a leaf (not a CA), with the
// clientAuth extended key usage, valid at now, with a key as strong as Issue demands,
// chaining to the client CA pool for client authentication. Problems are *InputError.
func (a *Authority) Check(certPEM []byte, now time.Time) (*x509.Certificate, error) {
	block, err := decodeOne(certPEM, "CERTIFICATE")
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, inputErrorf("is not a valid X.509 certificate")
	}
	switch {
	case cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign != 0:
		return nil, inputErrorf("is a CA certificate; send the partner's own (leaf) certificate")
	case !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageClientAuth):
		return nil, inputErrorf("lacks the clientAuth extended key usage (1.3.6.1.5.5.7.3.2)")
	case now.Before(cert.NotBefore):
		return nil, inputErrorf("is not valid before %s", cert.NotBefore.UTC().Format(time.RFC3339))
	case now.After(cert.NotAfter):
		return nil, inputErrorf("expired at %s", cert.NotAfter.UTC().Format(time.RFC3339))
	}
	if err := checkKey(cert.PublicKey); err != nil {
		return nil, err
	}
	opts := x509.VerifyOptions{Roots: a.roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := cert.Verify(opts); err != nil {
		return nil, inputErrorf("does not chain to the client CA that the mutual-TLS listener trusts")
	}
	return cert, nil
}

// strongSignatures are the request signatures Issue accepts: SHA-256 or stronger
// (CertificateRequest.CheckSignature alone still accepts SHA-1).
var strongSignatures = []x509.SignatureAlgorithm{
	x509.SHA256WithRSA, x509.SHA384WithRSA, x509.SHA512WithRSA,
	x509.SHA256WithRSAPSS, x509.SHA384WithRSAPSS, x509.SHA512WithRSAPSS,
	x509.ECDSAWithSHA256, x509.ECDSAWithSHA384, x509.ECDSAWithSHA512,
	x509.PureEd25519,
}
