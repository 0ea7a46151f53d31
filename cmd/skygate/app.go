package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/api"
	"github.com/skygate/skygate/internal/booking"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/clientca"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/eventfeed"
	"github.com/skygate/skygate/internal/httpapi"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/lifecycle"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/pricing"
	"github.com/skygate/skygate/internal/ratelimit"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/telemetry"
	"github.com/skygate/skygate/internal/webhook"
)

// app is the assembled service: the store, the identity core and the HTTP handler.
// serve runs it; tests start the same thing through run.
type app struct {
	cfg      *config.Config
	log      *slog.Logger
	db       database
	box      *seal.Box
	keys     *oauth.KeyManager
	issuer   *oauth.Issuer
	verifier *oauth.Verifier
	// revocations are the revoked access tokens, which the verifier refuses.
	revocations *oauth.RevocationList
	hasher      *oauth.SecretHasher
	identity    *identity.Service
	catalog     *catalog.Service
	bookings    *booking.Service
	worker      *booking.Worker
	esim        *esim.Service
	prices      *pricing.Service
	webhooks    *webhook.Service
	dispatch    *webhook.Dispatcher
	server      *httpapi.Server
	login       *employeeLogin
	// limiter is the in-process rate limiter, whose sweep runs in the background; nil
	// when limits are shared through Redis.
	limiter *ratelimit.Memory

	// events serves the events API; eventHub wakes its long-polls.
	events   *eventfeed.Service
	eventHub *eventfeed.Hub
}

// newApp opens the store (migrating when configured), makes sure a signing key exists,
// and builds the HTTP handler. ca issues and checks the client certificates of
// applications; nil refuses them. tr (nil is off) traces the store's statements and
// the webhook deliveries; the latency of the statements is on /metrics either way.
func newApp(ctx context.Context, cfg *config.Config, log *slog.Logger, clientCerts httpapi.ClientCertConfig, ca *clientca.Authority, tr *telemetry.Tracing) (_ *app, err error) {
	a := &app{cfg: cfg, log: log}
	if a.box, err = openBox(cfg, log); err != nil {
		return nil, err
	}
	statements := telemetry.NewStatements(engineName(cfg), tr.TracerProvider())
	if a.db, err = openMigrated(ctx, cfg, log, a.box, cfg.Migrate, statements); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = a.db.Close() // err is the failure to report
		}
	}()
	a.keys = oauth.NewKeyManager(a.db, a.box, time.Now, oauth.KeyManagerOptions{MaxTokenTTL: max(cfg.TokenTTL, time.Hour)})
	if err := a.keys.EnsureKey(ctx); err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	if a.issuer, err = oauth.NewIssuer(a.keys, oauth.IssuerConfig{Issuer: cfg.PublicURL, TTL: cfg.TokenTTL}); err != nil {
		return nil, err
	}
	a.revocations = oauth.NewRevocationList(a.db, time.Now, log)
	if err := a.revocations.Load(ctx); err != nil {
		return nil, fmt.Errorf("token revocations: %w", err)
	}
	if a.verifier, err = oauth.NewVerifier(a.keys, oauth.VerifierConfig{Issuer: cfg.PublicURL, Revoked: a.revocations.Revoked}); err != nil {
		return nil, err
	}
	a.hasher = oauth.NewSecretHasher(a.box)
	a.identity = identity.New(identity.Config{Store: a.db, Secrets: a.hasher, ClientCA: ca})
	a.catalog = catalog.NewService(a.db, time.Now)
	if err := a.catalog.Open(ctx); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	// A new booking wakes the service's worker, which issues it and wakes the dispatcher.
	a.bookings = booking.New(booking.Config{Store: a.db, FastTracks: a.catalog, ConfirmWindow: cfg.ConfirmWindow,
		PassengerDataRetention: cfg.PassengerDataRetention, Prices: a.db, Quotes: a.db})
	a.worker = booking.NewWorker(a.bookings, log)
	openAPIJSON, err := api.JSON(ctx)
	if err != nil {
		return nil, err
	}
	partnerJSON, err := api.PartnerJSON(ctx)
	if err != nil {
		return nil, err
	}
	matchingIDs, err := seal.New(a.box.DeriveKey(seal.PurposeESIMMatchingID))
	if err != nil {
		return nil, err
	}
	a.esim = esim.New(esim.Config{Store: a.db, Sealer: matchingIDs, PublicURL: cfg.PublicURL,
		InstallKey: a.box.DeriveKey(seal.PurposeESIMInstallLink)})
	a.prices = pricing.New(a.db, a.catalog, time.Now)
	webhookSecrets, err := seal.New(a.box.DeriveKey(seal.PurposeWebhookSecret))
	if err != nil {
		return nil, err
	}
	a.dispatch = webhook.NewDispatcher(webhook.DispatcherConfig{
		Store: a.db, Box: webhookSecrets, Logger: log, Lease: cfg.WebhookLease,
		Client:    webhook.NewClient(webhook.ClientOptions{AllowPrivate: cfg.WebhookPrivate, Timeout: cfg.WebhookTimeout}),
		UserAgent: "Skygate-Webhooks/1 (+" + cfg.PublicURL + ")",
		Tracer:    tr.TracerProvider(),

		SandboxDeployment: cfg.Env == config.EnvSandbox,
	})
	a.webhooks = webhook.NewService(webhook.Config{
		Store: a.db, Box: webhookSecrets, Grace: cfg.WebhookGrace, Notify: a.dispatch.Notify,
		Policy:    webhook.Policy{AllowHTTP: !cfg.Production(), AllowPrivate: cfg.WebhookPrivate},
		Retention: cfg.EventRetention,
	})
	eventCursors, err := seal.New(a.box.DeriveKey(seal.PurposeEventCursor))
	if err != nil {
		return nil, err
	}
	a.eventHub = eventfeed.NewHub(eventfeed.HubConfig{Changes: a.db.EventFeedChanges, Log: log})
	a.events = eventfeed.New(eventfeed.Config{Store: a.db, Hub: a.eventHub, Cursors: eventCursors, Retention: cfg.EventRetention})
	limits, err := rateLimits(cfg)
	if err != nil {
		return nil, err
	}
	a.limiter, _ = limits.Limiter.(*ratelimit.Memory)
	apps := oauth.NewApplicationCache(a.db, httpapi.ApplicationCacheTTL, time.Now)
	clients := oauth.NewClientAuthenticator(apps, a.hasher)
	clients.AcceptAssertions(a.db, cfg.PublicURL, time.Now)
	if a.login, err = newEmployeeLogin(cfg, a.box, a.db, a.keys, log); err != nil {
		return nil, fmt.Errorf("employee login: %w", err)
	}
	devIdPPattern, devIdP := a.login.devIdPRoute()
	tokens := oauth.NewTokenHandler(log, oauth.NewClientCredentialsGrant(clients, a.issuer), a.login.grant)
	tokens.Transient = transient(cfg)
	clientEndpoint := &oauth.ClientEndpoint{Clients: clients, Verifier: a.verifier, Log: log, Transient: transient(cfg)}
	// Prices come with the store that keeps price lists; without, availability has none.
	a.server = httpapi.NewServer(httpapi.Deps{
		Identity:           a.identity,
		Directory:          a.db,
		Audit:              a.db,
		Tokens:             a.verifier,
		Catalog:            a.catalog,
		Bookings:           a.bookings,
		ESIM:               a.esim,
		Prices:             a.prices,
		Webhooks:           a.webhooks,
		Events:             a.events,
		Applications:       apps,
		Limits:             limits,
		Proxies:            cfg.TrustedProxies,
		Transient:          transient(cfg),
		Sandbox:            cfg.Env == config.EnvSandbox,
		TokenEndpoint:      tokens,
		Revocation:         &oauth.RevocationHandler{ClientEndpoint: clientEndpoint, Revocations: a.revocations},
		Introspection:      &oauth.IntrospectionHandler{ClientEndpoint: clientEndpoint, Applications: apps},
		EmployeeLogin:      a.login.handler,
		DevIdP:             devIdP,
		DevIdPPattern:      devIdPPattern,
		JWKS:               a.keys.JWKSHandler(),
		Discovery:          oauth.DiscoveryHandler(cfg.PublicURL),
		PublicURL:          cfg.PublicURL,
		OpenAPIYAML:        api.OpenAPIYAML,
		OpenAPIJSON:        openAPIJSON,
		OpenAPIPartnerJSON: partnerJSON,
		ClientCerts:        clientCerts,
		Ready: map[string]func(context.Context) error{
			"database":    a.db.Ping,
			"signing_key": a.signingKeyReady,
		},
		Log:             log,
		AccessLog:       log,
		AccessLogOutput: logOutput(log),
		Traced:          tr.Enabled(),
		Now:             time.Now,
	})
	tokens.Hooks = a.server.TokenHooks()
	clientEndpoint.Hooks = tokens.Hooks
	// Every commit that enqueued a webhook delivery wakes this process's dispatcher,
	// whoever wrote it (worker, API, admin); other replicas find them when they poll.
	a.db.OnDeliveries(a.dispatch.Notify)
	// Every commit that wrote events wakes this process's long-polls of the events
	// API; the hub polls the feed's changes for other replicas' while any waits.
	a.db.OnEvents(a.eventHub.NotifyAccounts)
	a.server.Register(webhookCollectors(a.dispatch)...)
	a.server.Register(poolCollectors(a.db)...)
	a.server.Register(newBacklogCollector(a.db, time.Now, log), buildInfo(thisBuild()))
	a.server.Register(statements.Collector())
	return a, nil
}

// background returns the background work of every component, which serve runs with
// lifecycle.Run until it stops, before the store closes.
func (a *app) background() []lifecycle.Service {
	parts := []lifecycle.Service{
		lifecycle.Every("signing keys", 30*time.Second, a.log, a.keys.Maintain),
		a.server,      // account status changes made through other replicas
		a.revocations, // token revocations made through other replicas
		lifecycle.Every("token revocations", time.Minute, a.log, func(ctx context.Context) error {
			_, err := a.revocations.Purge(ctx)
			return err
		}),
		lifecycle.Every("login codes", time.Minute, a.log, func(ctx context.Context) error {
			_, err := a.login.handler.PruneCodes(ctx)
			return err
		}),
		// Used client assertion ids are kept until their exp (at most 5 minutes).
		lifecycle.Every("client assertions", time.Minute, a.log, func(ctx context.Context) error {
			_, err := a.db.PurgeClientAssertions(ctx, time.Now())
			return err
		}),
		a.dispatch,
		a.worker,
		a.eventHub, // long-polls woken by other replicas' events
		// Every replica purges; each event is deleted once. Events become due an hour
		// at a time (the margin past the retention), so a few minutes' delay is moot.
		lifecycle.Every("event retention", 5*time.Minute, a.log, func(ctx context.Context) error {
			_, err := a.events.Purge(ctx)
			return err
		}),
		// Every replica expires eSIMs and sends expiry warnings; each eSIM is claimed
		// by one. A due warning goes out within seconds: a 1-day pass is due for its
		// 1-day warning at activation. When nothing is due, the warnings' claim reads
		// two empty ranges of the partial index esims_expiring, which leaves out the
		// eSIMs whose last warning was sent.
		lifecycle.Every("eSIM lifecycle", 5*time.Second, a.log, func(ctx context.Context) error {
			_, expireErr := a.esim.ExpireDue(ctx, 1000)
			_, warnErr := a.esim.WarnExpiring(ctx, 1000)
			return errors.Join(expireErr, warnErr)
		}),
		lifecycle.Every("catalog refresh", a.cfg.CatalogRefresh, a.log, func(ctx context.Context) error {
			changed, err := a.catalog.Refresh(ctx)
			if err == nil && changed {
				a.log.InfoContext(ctx, "catalog reloaded", "version", a.catalog.Current().Version())
			}
			return err
		}),
	}
	if a.limiter != nil {
		parts = append(parts, a.limiter)
	}
	if p, ok := a.db.(eventPositioner); ok {
		// Requests position one batch of committed events at most; this positions a
		// larger backlog, so that the feed never lags far behind the commits.
		parts = append(parts, lifecycle.Every("event positions", time.Second, a.log, func(ctx context.Context) error {
			_, err := p.PositionEvents(ctx)
			return err
		}))
	}
	return parts
}

// eventPositioner is an engine that gives events their feed position after their
// commit (PostgreSQL); an engine that positions them at insert (SQLite) is not one.
type eventPositioner interface {
	PositionEvents(ctx context.Context) (int, error)
}

// demoAccount is the account every non-production start makes sure of, so that the
// sandbox works at once.
const demoAccount = "demo"

// ensureDemo creates the demo account and application outside production, through the
// identity service with the actor skygate.ActorSystem. In development its secret is
// derived from the master key, set on every start and printed to stdout (not the log)
// for the person at the terminal. Elsewhere it is random, set when the application is
// created and never shown: the log says how an operator gets one (bootstrap
// --rotate-secret).
func (a *app) ensureDemo(ctx context.Context, stdout io.Writer) error {
	shown := "sks_" + base64.RawURLEncoding.EncodeToString(a.box.DeriveKey("skygate demo client secret"))
	dev := a.cfg.Env == config.EnvDevelopment
	c := identity.Bootstrap{Account: demoAccount, Scopes: skygate.B2BScopes, Sandbox: true}
	if dev {
		c.Secret = shown
	}
	system := skygate.Actor{Subject: skygate.ActorSystem}
	demo, err := a.identity.Bootstrap(ctx, system, c)
	if err != nil {
		return err
	}
	accountID, clientID := demo.Account.ID, demo.Application.ClientID
	if !dev && a.hasher.Verify(shown, demo.Application.SecretHash) {
		// A development start on this database, or a version that logged it, set the
		// derived secret, which someone has seen: replace it with a random one, and
		// revoke the tokens obtained with it, which live for up to an hour.
		rotation := identity.SecretRotation{ApplicationID: demo.Application.ID, RevokeTokens: true}
		if _, err := a.identity.RotateSecret(ctx, system, rotation); err != nil {
			return err
		}
		a.log.Warn("replaced the demo client's secret, which an earlier start showed, and revoked its tokens",
			"account_id", accountID, "client_id", clientID)
	}
	// eSIM packages, a pool and a balance, so the sandbox works at once.
	if err := a.esim.SeedDemo(ctx, accountID, system); err != nil {
		return fmt.Errorf("demo eSIM data: %w", err)
	}
	if err := a.prices.SeedDemo(ctx, accountID, system); err != nil {
		return fmt.Errorf("demo fast-track prices: %w", err)
	}
	if !dev {
		a.log.Info("demo account ready; its secret is not shown", "account_id", accountID, "client_id", clientID,
			"new_secret", `skygate bootstrap --account `+demoAccount+` --scopes "`+strings.Join(skygate.B2BScopes, " ")+`" --rotate-secret`)
		return nil
	}
	a.log.Info("demo account ready (development only; its secret is on stdout)", "account_id", accountID, "client_id", clientID)
	_, err = fmt.Fprintf(stdout, "Demo client (development only): account_id=%s client_id=%s client_secret=%s\n", accountID, clientID, demo.ClientSecret)
	return err
}

// signingKeyReady reports whether a signing key is loaded.
func (a *app) signingKeyReady(context.Context) error {
	if !bytes.Contains(a.keys.JWKS(), []byte(`"kid"`)) {
		return errors.New("no signing key loaded")
	}
	return nil
}

// webhookTestRate limits the test events of each webhook subscription: ten a minute,
// all ten at once if need be. Each is a delivery to the partner's URL, and the route
// must not become a way to aim traffic at a host.
var webhookTestRate = ratelimit.Rate{PerSecond: 10.0 / 60, Burst: 10}

// webhookRecoverRate limits the recoveries of each webhook subscription: six a
// minute, all six at once if need be. Each queues up to webhook.MaxRecovered
// deliveries in one transaction: a partner paging through next_since after an outage
// still catches up in minutes, and one subscription cannot flood the delivery queue.
var webhookRecoverRate = ratelimit.Rate{PerSecond: 6.0 / 60, Burst: 6}

// installPageRate limits the hosted install page per source address: a minute's
// burst of 30 pages, then one every two seconds. A traveller opens the page a few
// times; guessing a 128-bit token is hopeless at any rate, and this bounds the reads
// and QR codes one address can make the service do.
var installPageRate = ratelimit.Rate{PerSecond: 0.5, Burst: 30}

// rateLimits builds the limiter: shared through Redis when SKYGATE_REDIS_URL is set,
// else in-process.
func rateLimits(cfg *config.Config) (httpapi.RateLimits, error) {
	l := httpapi.RateLimits{
		Account: ratelimit.Rate{PerSecond: cfg.AccountRate, Burst: cfg.AccountBurst},
		Token:   ratelimit.Rate{PerSecond: cfg.TokenRate, Burst: cfg.TokenBurst},
	}
	l.TokenSource = ratelimit.Rate{PerSecond: cfg.TokenSourceRate, Burst: cfg.TokenSourceBurst}
	l.WebhookTest, l.WebhookRecover = webhookTestRate, webhookRecoverRate
	l.InstallPage = installPageRate
	if cfg.RedisURL == "" {
		l.Limiter = ratelimit.NewMemory(time.Now)
		return l, nil
	}
	r, err := ratelimit.NewRedis(cfg.RedisURL, "skygate:ratelimit:")
	if err != nil {
		return l, err
	}
	l.Limiter = r
	return l, nil
}
