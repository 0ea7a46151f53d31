package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devpki"
	"github.com/skygate/skygate/internal/httpapi"
	"github.com/skygate/skygate/internal/lifecycle"
	"github.com/skygate/skygate/internal/telemetry"
)

// serve runs the API on both listeners, the operator listener and the background
// workers until ctx ends (a signal), then drains and shuts down (stopper.stop).
// log receives the access log too, when it writes info lines; stdout receives what a
// person reads at the terminal (the development demo client's credentials), never the
// log. tr traces the partner listeners' requests, the store's statements and the
// webhook deliveries when it is on. The listeners are bound before anything is created
// or migrated.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger, stdout io.Writer, tr *telemetry.Tracing) (err error) {
	stop := &stopper{delay: cfg.ShutdownDelay, timeout: cfg.ShutdownTimeout, log: log}
	defer func() { stop.logStopped(err) }() // the last line, once the store closed
	warnConveniences(cfg, log)
	warnPublicURL(cfg, log)
	plainLn, mtlsLn, opsLn, err := listen(cfg)
	if err != nil {
		return err
	}
	defer func() { _ = plainLn.Close() }() // the servers close it; this covers an early return
	defer func() { _ = mtlsLn.Close() }()
	defer func() { _ = opsLn.Close() }()
	tlsCfg, clientCAs, err := mtlsConfig(cfg, log)
	if err != nil {
		return err
	}
	authority, err := clientAuthority(cfg, clientCAs)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, log, httpapi.ClientCertConfig{CAs: clientCAs, ProxyHeader: cfg.ProxyCertHeader}, authority, tr)
	if err != nil {
		return err
	}
	defer func() { _ = a.db.Close() }() // on the way out; every write is committed
	if stdout == nil {
		stdout = io.Discard
	}
	if !cfg.Production() {
		if err := a.ensureDemo(ctx, stdout); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}

	warnBeyondLoopback(cfg, log, map[string]net.Listener{"SKYGATE_HTTP_ADDR": plainLn, "SKYGATE_MTLS_ADDR": mtlsLn, "SKYGATE_OPS_ADDR": opsLn})
	errLog := slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	newServer := func(h http.Handler, tc *tls.Config) *http.Server {
		return &http.Server{
			Handler:           h,
			TLSConfig:         tc,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          errLog,
		}
	}
	// The operator listener serves /metrics, /healthz and /readyz only: partners'
	// listeners do not show the service's internals. Its requests are not traced.
	partners := tr.Handler(a.server)
	plain, secure, ops := newServer(partners, nil), newServer(partners, tlsCfg), newServer(a.server.Ops(), nil)

	// The background work goes on while serve drains; stop ends it.
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	var bgErr error
	bgDone := make(chan struct{})
	go func() { defer close(bgDone); bgErr = lifecycle.Run(bg, a.background()...) }()

	errc := make(chan error, 3)
	go func() { errc <- plain.Serve(plainLn) }()
	go func() { errc <- secure.Serve(tls.NewListener(mtlsLn, tlsCfg)) }()
	go func() { errc <- ops.Serve(opsLn) }()
	log.Info("listening", "http", "http://"+plainLn.Addr().String(), "mtls", "https://"+mtlsLn.Addr().String(),
		"ops", "http://"+opsLn.Addr().String(), "database", engineName(cfg), "env", cfg.Env)

	var serveErr error
	signalled := false
	select {
	case <-ctx.Done():
		signalled = true
	case serveErr = <-errc:
	case <-bgDone: // only a failure ends the background work early
		log.Error("background work failed", "err", bgErr)
	}
	bgReturned, err := stop.stop(signalled, work{servers: []*http.Server{plain, secure, ops},
		drain: a.server.Drain, stopBG: stopBG, done: bgDone})
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	if !bgReturned { // bgErr is still the background work's to write
		return errors.Join(serveErr, err)
	}
	return errors.Join(serveErr, bgErr, err)
}

// mtlsConfig builds the TLS configuration of the mutual-TLS listener: the server
// certificate, and client certificates requested and, when given, verified against the
// client CA. Requests without one reach the handler, which answers booking routes with
// ClientCertificateRequired (a clear 401 rather than a failed handshake).
func mtlsConfig(cfg *config.Config, log *slog.Logger) (*tls.Config, *x509.CertPool, error) {
	certFile, keyFile, caFile := cfg.TLSCert, cfg.TLSKey, cfg.ClientCA
	if cfg.DevPKI() {
		f, err := devpki.Ensure(filepath.Join(cfg.DataDir, "pki"), time.Now())
		if err != nil {
			return nil, nil, err
		}
		msg := "development PKI: partners' mTLS client files"
		if f.GeneratedNow {
			msg = "created the development PKI: partners' mTLS client files"
		}
		log.Info(msg, "dir", f.Dir, "ca", f.CA, "client_cert", f.ClientCert, "client_key", f.ClientKey)
		certFile, keyFile, caFile = f.ServerCert, f.ServerKey, f.CA
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("TLS certificate: %w", err)
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, nil, fmt.Errorf("client CA: %w", err)
	}
	if cfg.Production() {
		if err := refuseDevCA(cert, caPEM); err != nil {
			return nil, nil, err
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, nil, fmt.Errorf("client CA %s holds no PEM certificate", caFile)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}, pool, nil
}

// listen binds the three listeners, naming the variable of an address it cannot bind.
func listen(cfg *config.Config) (plain, mtls, ops net.Listener, err error) {
	var lns []net.Listener
	for _, a := range cfg.ListenAddrs() {
		ln, err := net.Listen("tcp", a.Addr)
		if err != nil {
			for _, l := range lns {
				_ = l.Close() // the listen error is the one to report
			}
			return nil, nil, nil, fmt.Errorf("%s: %w", a.Variable, err)
		}
		lns = append(lns, ln)
	}
	return lns[0], lns[1], lns[2], nil
}

// migrate applies the migrations and exits.
func migrate(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	box, err := openBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cfg, log, box, true, nil)
	if err != nil {
		return err
	}
	return db.Close()
}
