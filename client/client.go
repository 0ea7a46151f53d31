package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skygate/skygate/client/api"
)

// The files of a PKI directory (Config.PKIDir): Skygate's development PKI writes them
// under SKYGATE_DATA_DIR/pki.
const (
	CAFile         = "ca.pem"         // the CA of the mutual-TLS listener's certificate
	ClientCertFile = "client.pem"     // the partner's client certificate
	ClientKeyFile  = "client-key.pem" // its private key
)

// tokenPath is the OAuth 2.0 token endpoint, on the plain listener.
const tokenPath = "/oauth/v2/token"

// Config says where Skygate listens and who the partner is.
type Config struct {
	// BaseURL is the plain listener (token, catalog, eSIM, webhooks), e.g.
	// http://127.0.0.1:8080; tokens are fetched there.
	BaseURL string
	// MTLSURL is the mutual-TLS listener (booking), e.g. https://127.0.0.1:8443. It
	// serves every route: an application bound to a client certificate calls all of
	// them there (Client.MTLS). Empty: no Client.MTLS.
	MTLSURL string

	// ClientID and ClientSecret are the application's client credentials.
	ClientID     string
	ClientSecret string
	// Scopes are requested with every token; empty asks for all of the application's.
	Scopes []string

	// PKIDir is a directory with CAFile, ClientCertFile and ClientKeyFile, for the
	// mutual-TLS listener. TLSConfig, when set, is used instead.
	PKIDir    string
	TLSConfig *tls.Config

	// HTTPClient is the base of every call (its transport for the plain listener, its
	// timeout and redirect policy for both); nil means a client without a timeout
	// over http.DefaultTransport. Its transport must be an *http.Transport for the
	// mutual-TLS listener, whose TLS settings are replaced.
	HTTPClient *http.Client
}

// Client calls Skygate's two listeners with a token of the partner's application,
// fetched with the client-credentials grant when first needed and again shortly
// before it expires; both share it.
type Client struct {
	// API calls the plain listener.
	API *api.ClientWithResponses
	// MTLS calls the mutual-TLS listener and presents the client certificate; nil
	// without Config.MTLSURL.
	MTLS *api.ClientWithResponses
}

// New returns a Client for cfg. It reads the PKI files but makes no request.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" || cfg.ClientID == "" || cfg.ClientSecret == "" {
		return nil, errors.New("skygate client: BaseURL, ClientID and ClientSecret are required")
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	cc := clientcredentials.Config{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		TokenURL:     strings.TrimSuffix(cfg.BaseURL, "/") + tokenPath,
		Scopes:       cfg.Scopes,
		AuthStyle:    oauth2.AuthStyleInHeader,
	}
	// The token source keeps this context for every token request it makes later.
	tokens := cc.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, base))

	c := &Client{}
	var err error
	if c.API, err = newAPI(cfg.BaseURL, base, tokens); err != nil {
		return nil, err
	}
	if cfg.MTLSURL == "" {
		return c, nil
	}
	tlsCfg := cfg.TLSConfig
	if tlsCfg == nil {
		if cfg.PKIDir == "" {
			return nil, errors.New("skygate client: MTLSURL needs PKIDir or TLSConfig")
		}
		if tlsCfg, err = LoadPKI(cfg.PKIDir); err != nil {
			return nil, err
		}
	}
	tr, ok := base.Transport.(*http.Transport)
	switch {
	case base.Transport == nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
	case ok:
		tr = tr.Clone()
	default:
		return nil, fmt.Errorf("skygate client: HTTPClient.Transport is a %T, not an *http.Transport", base.Transport)
	}
	tr.TLSClientConfig = tlsCfg
	mtls := *base
	mtls.Transport = tr
	if c.MTLS, err = newAPI(cfg.MTLSURL, &mtls, tokens); err != nil {
		return nil, err
	}
	return c, nil
}

// newAPI returns a generated client for server whose requests go through base with a
// bearer token from tokens.
func newAPI(server string, base *http.Client, tokens oauth2.TokenSource) (*api.ClientWithResponses, error) {
	authed := *base
	authed.Transport = &oauth2.Transport{Source: tokens, Base: base.Transport}
	c, err := api.NewClientWithResponses(server, api.WithHTTPClient(&authed))
	if err != nil {
		return nil, fmt.Errorf("skygate client: %w", err)
	}
	return c, nil
}

// LoadPKI returns the TLS configuration of the mutual-TLS listener from dir: the
// listener's CA from CAFile, the client certificate from ClientCertFile and
// ClientKeyFile.
func LoadPKI(dir string) (*tls.Config, error) {
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, fmt.Errorf("skygate client: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("skygate client: no certificate in %s", filepath.Join(dir, CAFile))
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, ClientCertFile), filepath.Join(dir, ClientKeyFile))
	if err != nil {
		return nil, fmt.Errorf("skygate client: %w", err)
	}
	return &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
