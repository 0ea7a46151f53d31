package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/skygate/skygate"
)

// Ops returns the handler of the operator listener (SKYGATE_OPS_ADDR): /metrics,
// /healthz and /readyz, through the same middleware as the partner listeners (request
// id, problem+json for anything else, access log, metrics). The partner listeners do
// not serve /metrics: the series name every route, status and pool of the service.
func (s *Server) Ops() *Server { return s.ops }

// newOps builds the operator server, sharing s's metrics, access log and readiness
// checks. It does not compress: promhttp gzip-codes /metrics itself.
func (s *Server) newOps() *Server {
	o := &Server{deps: s.deps, mux: http.NewServeMux(), log: s.log, now: s.now,
		metrics: s.metrics, access: s.access, draining: s.draining}
	o.next = o.mux
	o.route("GET /metrics", o.metrics.handler())
	o.route("GET /healthz", o.handle(o.healthz))
	o.route("GET /readyz", o.handle(o.readyz))
	return o
}

// Drain marks the service as shutting down, on every listener and for good: /readyz
// answers 503, so that load balancers take the replica out, and every response carries
// Connection: close, so that clients open their next connection elsewhere (HTTP/2
// connections get a GOAWAY). Requests are served as before until the listeners close.
func (s *Server) Drain() {
	s.draining.Store(true)
	if s.deps.Events != nil {
		s.deps.Events.Drain() // long-polls answer what they have, so Shutdown need not wait for them
	}
}

// healthz answers 200 while the process serves requests.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when every readiness check passes (database reachable, signing
// key loaded), else 503 with the failing checks; and 503 without Retry-After once the
// service drains, since it will not be ready again.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if s.draining.Load() {
		return &skygate.Error{Code: skygate.CodeUnavailable, Message: "not ready: shutting down; the listeners close once the drain delay has passed"}
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{}
	var failing []string
	for name, check := range s.deps.Ready {
		checks[name] = "ok"
		if err := check(ctx); err != nil {
			failing = append(failing, name)
			s.log.WarnContext(ctx, "readiness check failed", "check", name, "err", err)
		}
	}
	if len(failing) > 0 {
		w.Header().Set("Retry-After", "1")
		return &skygate.Error{Code: skygate.CodeUnavailable, Message: "not ready: " + strings.Join(failing, ", ")}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}

// openAPI serves the contract in the representation the path names.
func (s *Server) openAPI(contentType string, body []byte) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
		return nil
	}
}
