package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/oauth"
)

// credentials is what bootstrap prints. ClientSecret is empty when the account existed
// already and --rotate-secret was not given: a secret is shown once only.
type credentials struct {
	AccountID    string `json:"account_id"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// defineBootstrap declares bootstrap's flags. The command creates an account and one
// application, idempotent by account name, through the identity service: the admin
// API's validation, and audit records with the actor skygate.ActorBootstrap.
func defineBootstrap(fs *flag.FlagSet) func(context.Context, *invocation) error {
	name := fs.String("account", "", "account name (required)")
	scopes := fs.String("scopes", "", "space-separated allowed scopes (required), such as \"catalog.fasttrack:read booking.fasttrack:write\"")
	sandbox := fs.Bool("sandbox", false, "sandbox application")
	certSHA := fs.String("client-cert-sha256", "", "bind the application to a client certificate (x5t#S256)")
	rotate := fs.Bool("rotate-secret", false, "when the account exists, issue a new secret for its application")
	revoke := fs.Bool("revoke-tokens", false, "with --rotate-secret: also revoke every token the application was issued")
	return func(ctx context.Context, in *invocation) error {
		c := identity.Bootstrap{Account: *name, Scopes: skygate.ParseScopes(*scopes), Sandbox: *sandbox, ClientCertSHA256: *certSHA}
		switch {
		case *revoke && !*rotate:
			return errors.New("bootstrap: --revoke-tokens revokes with the new secret of --rotate-secret: give both")
		case *revoke:
			c.Rotation = identity.NewSecretRevokingTokens
		case *rotate:
			c.Rotation = identity.NewSecret
		}
		if err := c.Validate(); err != nil { // before anything is created
			return bootstrapError(err)
		}
		return bootstrap(ctx, in.cfg, in.log, c, in.stdout)
	}
}

// bootstrap runs the bootstrap command's request c.
func bootstrap(ctx context.Context, cfg *config.Config, log *slog.Logger, c identity.Bootstrap, stdout io.Writer) error {
	box, err := openBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, box, cfg.Migrate, nil)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the work is committed or its error returned
	ids := identity.New(identity.Config{Store: db, Secrets: oauth.NewSecretHasher(box)})
	res, err := ids.Bootstrap(ctx, skygate.Actor{Subject: skygate.ActorBootstrap}, c)
	if err != nil {
		return bootstrapError(err)
	}
	creds := credentials{AccountID: res.Account.ID, ClientID: res.Application.ClientID, ClientSecret: res.ClientSecret}
	if creds.ClientSecret == "" {
		log.Info("account exists; its secret is not shown again (use --rotate-secret for a new one)", "account_id", creds.AccountID)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(creds)
}

// bootstrapError names the flags of a validation error's fields (account becomes
// --account, scopes[1] --scopes[1]).
func bootstrapError(err error) error {
	e, ok := errors.AsType[*skygate.Error](err)
	if !ok || e.Code != skygate.CodeValidation {
		return fmt.Errorf("bootstrap: %w", err)
	}
	problems := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		problems[i] = "--" + strings.ReplaceAll(f.Field, "_", "-") + ": " + f.Message
	}
	if strings.Contains(strings.Join(problems, " "), "unknown B2B scope") {
		problems = append(problems, "known scopes: "+strings.Join(skygate.B2BScopes, " "))
	}
	return fmt.Errorf("bootstrap: %s", strings.Join(problems, "; "))
}
