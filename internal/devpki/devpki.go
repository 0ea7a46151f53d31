// Package devpki creates, once, the development PKI under a directory: a CA, a server
// certificate for 127.0.0.1 and localhost, and one client certificate, so that the mTLS
// listener works on a fresh machine. Production never uses it (config refuses).
package devpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CACommonName is the subject of the development CA, by which production recognizes
// (and refuses) its certificates wherever their files lie.
const CACommonName = "Skygate development CA"

// Files names the PEM files of the development PKI.
type Files struct {
	Dir          string
	CA           string
	ServerCert   string
	ServerKey    string
	ClientCert   string
	ClientKey    string
	ClientCAKey  string
	GeneratedNow bool
}

// Paths returns the file names under dir without touching the disk.
func Paths(dir string) Files {
	return Files{
		Dir:         dir,
		CA:          filepath.Join(dir, "ca.pem"),
		ClientCAKey: filepath.Join(dir, "ca-key.pem"),
		ServerCert:  filepath.Join(dir, "server.pem"),
		ServerKey:   filepath.Join(dir, "server-key.pem"),
		ClientCert:  filepath.Join(dir, "client.pem"),
		ClientKey:   filepath.Join(dir, "client-key.pem"),
	}
}

// Ensure creates the PKI under dir unless ca.pem already exists there, and returns the
// file names. Existing files are never overwritten.
func Ensure(dir string, now time.Time) (Files, error) {
	f := Paths(dir)
	if _, err := os.Stat(f.CA); err == nil {
		return f, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, fmt.Errorf("devpki: %w", err)
	}
	ca, caKey, err := newCert(nil, nil, now, pkix.Name{CommonName: CACommonName, Organization: []string{"Skygate dev"}}, true, nil)
	if err != nil {
		return f, err
	}
	srv, srvKey, err := newCert(ca, caKey, now, pkix.Name{CommonName: "localhost"}, false, func(t *x509.Certificate) {
		t.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		t.DNSNames = []string{"localhost"}
		t.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}
	})
	if err != nil {
		return f, err
	}
	cli, cliKey, err := NewClientCert(ca, caKey, now, "skygate-dev-client")
	if err != nil {
		return f, err
	}
	for _, w := range []struct {
		path  string
		block string
		der   []byte
	}{
		{f.ClientCAKey, "PRIVATE KEY", mustPKCS8(caKey)},
		{f.ServerCert, "CERTIFICATE", srv.Raw},
		{f.ServerKey, "PRIVATE KEY", mustPKCS8(srvKey)},
		{f.ClientCert, "CERTIFICATE", cli.Raw},
		{f.ClientKey, "PRIVATE KEY", mustPKCS8(cliKey)},
		{f.CA, "CERTIFICATE", ca.Raw}, // last: its presence means the set is complete
	} {
		data := pem.EncodeToMemory(&pem.Block{Type: w.block, Bytes: w.der})
		if err := os.WriteFile(w.path, data, 0o600); err != nil {
			return f, fmt.Errorf("devpki: %w", err)
		}
	}
	f.GeneratedNow = true
	return f, nil
}

// NewClientCert issues a client-authentication certificate signed by ca.
func NewClientCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time, cn string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	return newCert(ca, caKey, now, pkix.Name{CommonName: cn, Organization: []string{"Skygate partner"}}, false, func(t *x509.Certificate) {
		t.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
}

// LoadCA reads the CA certificate and key written by Ensure.
func LoadCA(f Files) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certPEM, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(f.ClientCAKey)
	if err != nil {
		return nil, nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, errors.New("devpki: bad PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, nil, errors.New("devpki: CA key is not ECDSA")
	}
	return cert, ek, nil
}

func newCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, now time.Time, name pkix.Name, isCA bool, edit func(*x509.Certificate)) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               name,
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(5, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  isCA,
	}
	if isCA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	}
	if edit != nil {
		edit(tmpl)
	}
	signer, signerKey := parent, parentKey
	if parent == nil {
		signer, signerKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, fmt.Errorf("devpki: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func mustPKCS8(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		panic(err) // a P-256 key always marshals
	}
	return der
}
