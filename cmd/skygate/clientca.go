package main

import (
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skygate/skygate/internal/clientca"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
)

// clientAuthority builds the authority behind the admin API's client certificates for
// the client CA pool that the mutual-TLS listener trusts (mtlsConfig's). It signs
// partners' CSRs with the development PKI's CA when the development PKI is in use,
// with SKYGATE_CLIENT_CA's own key when SKYGATE_CLIENT_CA_KEY names it, and otherwise
// only checks certificates that the operator's CA signed elsewhere.
func clientAuthority(cfg *config.Config, pool *x509.CertPool) (*clientca.Authority, error) {
	c := clientca.Config{Roots: pool, TTL: cfg.ClientCertTTL}
	switch {
	case cfg.DevPKI():
		ca, key, err := devpki.LoadCA(devpki.Paths(filepath.Join(cfg.DataDir, "pki")))
		if err != nil {
			return nil, fmt.Errorf("development client CA: %w", err)
		}
		c.CA, c.Key = ca, key
	case cfg.ClientCAKey != "":
		keyPEM, err := os.ReadFile(cfg.ClientCAKey)
		if err != nil {
			return nil, fmt.Errorf("SKYGATE_CLIENT_CA_KEY: %w", err)
		}
		if c.Key, err = clientca.ParsePrivateKey(keyPEM); err != nil {
			return nil, fmt.Errorf("SKYGATE_CLIENT_CA_KEY %s: %w", cfg.ClientCAKey, err)
		}
		bundle, err := os.ReadFile(cfg.ClientCA)
		if err != nil {
			return nil, fmt.Errorf("SKYGATE_CLIENT_CA: %w", err)
		}
		if c.CA, err = clientca.CAFor(bundle, c.Key); err != nil {
			return nil, fmt.Errorf("SKYGATE_CLIENT_CA_KEY %s does not match SKYGATE_CLIENT_CA %s: %w", cfg.ClientCAKey, cfg.ClientCA, err)
		}
	}
	return clientca.New(c)
}
