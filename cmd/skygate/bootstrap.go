package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/oauth"
)

// credentials is what bootstrap prints. ClientSecret is empty when the account existed
// already and --rotate-secret was not given: a secret is shown once only.
type credentials struct {
	AccountID    string `json:"account_id"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// bootstrap creates an account and one application, idempotent by account name.
func bootstrap(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("account", "", "account name (required)")
	scopes := fs.String("scopes", "", "space-separated allowed scopes (required)")
	sandbox := fs.Bool("sandbox", false, "sandbox application")
	certSHA := fs.String("client-cert-sha256", "", "bind the application to a client certificate (x5t#S256)")
	rotate := fs.Bool("rotate-secret", false, "when the account exists, issue a new secret for its application")
	revoke := fs.Bool("revoke-tokens", false, "with --rotate-secret: also revoke every token the application was issued")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	req := bootstrapRequest{Account: strings.TrimSpace(*name), Scopes: skygate.ParseScopes(*scopes), Sandbox: *sandbox,
		CertSHA256: *certSHA, Rotate: *rotate, RevokeTokens: *revoke}
	if err := req.validate(); err != nil {
		return err
	}
	box, err := openBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, box, cfg.Migrate)
	if err != nil {
		return err
	}
	defer db.Close()
	creds, err := ensureAccount(ctx, db, oauth.NewSecretHasher(box), time.Now, req)
	if err != nil {
		return err
	}
	if creds.ClientSecret == "" {
		log.Info("account exists; its secret is not shown again (use --rotate-secret for a new one)", "account_id", creds.AccountID)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(creds)
}

type bootstrapRequest struct {
	Account    string
	Scopes     []string
	Sandbox    bool
	CertSHA256 string
	Rotate     bool
	// RevokeTokens makes the rotation (Rotate) revoke every token the application was
	// issued (skygate.ApplicationStore.SetApplicationSecretRevokingTokens).
	RevokeTokens bool
	// Secret, when set, is used instead of a random one (the development demo account).
	Secret string
}

func (r bootstrapRequest) validate() error {
	var errs []error
	if r.Account == "" || len(r.Account) > 128 {
		errs = append(errs, errors.New("--account is required (1–128 characters)"))
	}
	if len(r.Scopes) == 0 {
		errs = append(errs, errors.New("--scopes is required"))
	}
	if r.RevokeTokens && !r.Rotate {
		errs = append(errs, errors.New("--revoke-tokens revokes with the new secret of --rotate-secret: give both"))
	}
	for _, s := range r.Scopes {
		if !slices.Contains(skygate.B2BScopes, s) {
			errs = append(errs, fmt.Errorf("unknown B2B scope %q (known: %s)", s, strings.Join(skygate.B2BScopes, " ")))
		}
	}
	return errors.Join(errs...)
}

// ensureAccount is the idempotent core of bootstrap, shared with the development demo
// data. A concurrent bootstrap of the same name loses the insert race and reads the
// winner's account.
func ensureAccount(ctx context.Context, db skygate.Store, hasher *oauth.SecretHasher, now skygate.Clock, r bootstrapRequest) (*credentials, error) {
	t := now().UTC()
	acc, err := db.AccountByName(ctx, r.Account)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		acc = &skygate.Account{ID: skygate.NewID(), Name: r.Account, Status: skygate.AccountActive, CreatedAt: t, UpdatedAt: t}
		err = db.CreateAccount(ctx, acc)
		if skygate.IsCode(err, skygate.CodeConflict) {
			acc, err = db.AccountByName(ctx, r.Account)
		}
	}
	if err != nil {
		return nil, err
	}
	apps, _, err := db.ListApplications(ctx, acc.ID, skygate.Page{Limit: 1})
	if err != nil {
		return nil, err
	}
	secret := r.Secret
	if secret == "" {
		if secret, err = oauth.NewClientSecret(); err != nil {
			return nil, err
		}
	}
	if len(apps) > 0 {
		creds := &credentials{AccountID: acc.ID, ClientID: apps[0].ClientID}
		if r.Rotate || r.Secret != "" {
			set := db.SetApplicationSecret
			if r.RevokeTokens {
				set = db.SetApplicationSecretRevokingTokens
			}
			if _, err := set(ctx, acc.ID, apps[0].ID, hasher.Hash(secret), t); err != nil {
				return nil, err
			}
			creds.ClientSecret = secret
		}
		return creds, nil
	}
	app := &skygate.Application{
		ID: skygate.NewID(), AccountID: acc.ID, Name: r.Account + " default",
		ClientID: skygate.NewClientID(), SecretHash: hasher.Hash(secret),
		AllowedScopes: r.Scopes, Sandbox: r.Sandbox, ClientCertSHA256: r.CertSHA256,
		CreatedAt: t, UpdatedAt: t,
	}
	if err := db.CreateApplication(ctx, app); err != nil {
		return nil, err
	}
	return &credentials{AccountID: acc.ID, ClientID: app.ClientID, ClientSecret: secret}, nil
}
