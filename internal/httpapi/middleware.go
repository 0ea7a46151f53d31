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
)

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

// requestIDPrefix makes generated request ids unique across processes, and
// requestIDSeq within one.
var (
	requestIDPrefix = func() string {
		var b [8]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}()
	requestIDSeq atomic.Uint64
)

// requestID is the id of a request with this X-Request-ID value: the value when
// validRequestID accepts it, else a new one.
func requestID(supplied string) string {
	if validRequestID(supplied) {
		return supplied
	}
	return newRequestID()
}

// newRequestID returns an id no other request of any process has had.
func newRequestID() string {
	return requestIDPrefix + "-" + strconv.FormatUint(requestIDSeq.Add(1), 16)
}

// responseWriter records the status and size for logs and metrics, and replaces the
// plain-text 404/405 answers of http.ServeMux with problem+json.
type responseWriter struct {
	http.ResponseWriter
	s       *Server
	r       *http.Request
	status  int
	written int64
	swallow bool
}

func (w *responseWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	h := w.Header()
	if (code == http.StatusNotFound || code == http.StatusMethodNotAllowed) &&
		strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		// Only ServeMux writes text/plain errors: our handlers return errors instead.
		w.swallow = true
		h.Del("X-Content-Type-Options")
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

// ServeHTTP runs the outer middleware: request id, panic recovery, logging and metrics,
// then s.next (compression and the router). Like http.ServeMux, it sets r.Pattern to
// the pattern of the route that served r, so that middleware around the server
// (tracing) learns the route, also when the handler panicked.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := r
	st := &requestState{id: requestID(r.Header.Get("X-Request-ID")), start: s.now()}
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	w.Header().Set("X-Request-ID", st.id)
	if s.draining.Load() {
		w.Header().Set("Connection", "close") // see Drain
	}
	rw := &responseWriter{ResponseWriter: w, s: s, r: r}
	defer func() {
		in.Pattern = r.Pattern
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { //nolint:errorlint // the panic value itself, as net/http compares it
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic", "panic", s.redact(r, fmt.Sprint(v)), "stack", string(debug.Stack()), "request_id", st.id)
			if rw.status == 0 {
				s.writeError(rw, r, fmt.Errorf("panic: %v", v))
			}
		}
		s.observe(rw, r, st)
	}()
	s.next.ServeHTTP(rw, r)
}

// observe updates the metrics and writes the access-log line of a request.
func (s *Server) observe(rw *responseWriter, r *http.Request, st *requestState) {
	status := rw.status
	if status == 0 {
		status = http.StatusOK
	}
	end := s.now()
	elapsed := end.Sub(st.start)
	route := r.Pattern
	if route == "" {
		route = "unmatched"
	}
	s.metrics.observe(r.Pattern, r.Method, status, elapsed)
	if s.access == nil && !s.deps.Traced {
		return
	}
	src := s.source(r)
	if s.deps.Traced {
		traceSource(r.Context(), src)
		if s.secret[r.Pattern] {
			traceSecretPath(r.Context(), s.loggedPath(r))
		}
	}
	if s.access == nil {
		return
	}
	s.access.write(r.Context(), &accessEntry{at: end, method: r.Method, path: s.loggedPath(r), route: route, status: status,
		bytes: rw.written, elapsed: elapsed, requestID: st.id, source: src, claims: st.claims})
}

// loggedPath is the path of r as logs and traces name it: the request's path, or the
// path of its pattern ("/esim/install/{token}") when the route declared its path
// secret (routeSecret).
func (s *Server) loggedPath(r *http.Request) string {
	if s.secret[r.Pattern] {
		return routePath(r.Pattern)
	}
	return r.URL.Path
}

// redact returns text with the path of r and the values of its pattern's wildcards
// replaced by the pattern's path and the wildcards' names, when r's route declared its
// path secret, and text itself otherwise: what the error log may say of an error
// whose message might quote the path.
func (s *Server) redact(r *http.Request, text string) string {
	if !s.secret[r.Pattern] {
		return text
	}
	p := routePath(r.Pattern)
	if r.URL.Path != "" {
		text = strings.ReplaceAll(text, r.URL.Path, p)
	}
	for _, seg := range strings.Split(p, "/") {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, "}"), "...")
		if v := r.PathValue(name); v != "" {
			text = strings.ReplaceAll(text, v, "{"+name+"}")
		}
	}
	return text
}

// routePath is the path of a ServeMux pattern: "GET /a/{id}" is "/a/{id}".
func routePath(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return pattern
}

// arrival returns when the request whose context ctx is arrived (when ServeHTTP
// began), the time its token is verified at; the clock's time outside ServeHTTP.
func (s *Server) arrival(ctx context.Context) time.Time {
	if st := stateOf(ctx); st != nil {
		return st.start
	}
	return s.now()
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
