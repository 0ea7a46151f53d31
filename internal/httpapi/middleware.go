package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

type ctxKey int

// ctxState holds the *requestState of a request.
const ctxState ctxKey = 0

// requestState is what the middleware learns about a request as it goes: set once in
// ServeHTTP and filled in by authentication, so the access log sees the principal
// without a second request copy.
type requestState struct {
	id     string
	claims *oauth.Claims
}

func stateFrom(ctx context.Context) *requestState {
	st, _ := ctx.Value(ctxState).(*requestState)
	return st
}

func requestIDFrom(ctx context.Context) string {
	if st := stateFrom(ctx); st != nil {
		return st.id
	}
	return ""
}

// validRequestID accepts 1–128 characters of [A-Za-z0-9._-], as the contract says.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// requestIDPrefix makes generated request ids unique across processes; the counter
// makes them unique within one, without a random read per request.
var (
	requestIDPrefix = func() string {
		var b [8]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}()
	requestIDSeq atomic.Uint64
)

func newRequestID() string {
	var buf [16 + 1 + 16]byte
	b := append(buf[:0], requestIDPrefix...)
	b = append(b, '-')
	b = strconv.AppendUint(b, requestIDSeq.Add(1), 16)
	return string(b)
}

// responseWriter records the status for logs and metrics, and replaces the plain-text
// 404/405 answers of http.ServeMux with problem+json. It also holds the request's
// state and its X-Request-Id header value, so that one allocation serves all three.
type responseWriter struct {
	http.ResponseWriter
	s       *Server
	r       *http.Request
	status  int
	written int64
	swallow bool
	state   requestState
	id      [1]string
}

func (w *responseWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	if (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) &&
		strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		// Only ServeMux writes text/plain errors: our handlers return errors instead.
		w.swallow = true
		w.Header().Del("X-Content-Type-Options")
		err := skygate.Errorf(skygate.CodeNotFound, "no resource at %s", w.r.URL.Path)
		if code == http.StatusMethodNotAllowed {
			err = skygate.Errorf(skygate.CodeMethodNotAllowed, "%s is not allowed here; see the Allow header", w.r.Method)
		}
		w.status = code
		w.s.writeError(w.ResponseWriter, w.r, err)
		return
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.swallow {
		return len(b), nil
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headerRequestID is X-Request-ID in the canonical form of http.Header keys, so the hot
// path reads and sets it without canonicalising (and allocating) the key each time.
const headerRequestID = "X-Request-Id"

// ServeHTTP runs the outer middleware: request id, panic recovery, logging and metrics,
// then the router.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := s.now()
	var id string
	if v := r.Header[headerRequestID]; len(v) > 0 {
		id = v[0]
	}
	if !validRequestID(id) {
		id = newRequestID()
	}
	rw := &responseWriter{ResponseWriter: w, s: s, state: requestState{id: id}, id: [1]string{id}}
	w.Header()[headerRequestID] = rw.id[:]
	ctx := context.WithValue(r.Context(), ctxState, &rw.state)
	r = r.WithContext(ctx)
	rw.r = r
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(ctx, "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()), "request_id", id)
			if rw.status == 0 {
				s.writeError(rw, r, fmt.Errorf("panic: %v", v))
			}
		}
		s.observe(rw, r, start)
	}()
	if route, ok := s.exact.lookup(r); ok {
		r.Pattern = route.pattern
		route.h.ServeHTTP(rw, r)
		return
	}
	s.mux.ServeHTTP(rw, r)
}

// observe updates the metrics and writes the access-log line of a request.
func (s *Server) observe(rw *responseWriter, r *http.Request, start time.Time) {
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	end := s.now()
	elapsed := end.Sub(start)
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	s.metrics.observe(route, r.Method, status, elapsed)
	if s.access == nil {
		return
	}
	s.access.write(&accessEntry{at: end, method: r.Method, path: r.URL.Path, route: route, status: status,
		bytes: rw.written, elapsed: elapsed, requestID: rw.state.id, claims: rw.state.claims})
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc: a returned error becomes a problem+json response.
func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}
