package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/skygate/skygate/api"
)

func init() {
	// Binary responses (pass and eSIM QR codes) are checked for their media type only.
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	// The eSIM install page is HTML, a string to the document.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.FileBodyDecoder)
}

// validatingTransport checks every response of a test client against the OpenAPI
// document: the route must be documented, and status, headers and body must match.
type validatingTransport struct {
	tb     testing.TB
	base   http.RoundTripper
	router routers.Router
	// partner are the partner listeners' base URLs, whose answers all say Vary:
	// Accept-Encoding.
	partner []string
}

func newValidatingTransport(tb testing.TB, base http.RoundTripper, urls ...string) http.RoundTripper {
	tb.Helper()
	return validatingTransportOf(tb, base, urls, "")
}

// newOpsValidatingTransport validates the responses of the operator listener at ops:
// only the paths whose servers name the operator listener are found there.
func newOpsValidatingTransport(tb testing.TB, base http.RoundTripper, ops string) http.RoundTripper {
	tb.Helper()
	return validatingTransportOf(tb, base, nil, ops)
}

// openAPIDoc is the document, loaded and validated once per test binary: loading it
// took most of the work of starting a test server. It is only read; each transport
// routes by a copy of its top level and path items, with its own servers.
var openAPIDoc = sync.OnceValues(func() (*openapi3.T, error) { return api.Load(context.Background()) })

// validatingTransportOf routes by the document with its servers replaced by the test
// server's: the document's servers (the partner listeners) by urls, and a path's own
// server that is not one of them (the operator listener) by ops. With ops "" such a
// server keeps the document's address, where no test server listens; with urls nil
// only the operator listener's paths are routed.
func validatingTransportOf(tb testing.TB, base http.RoundTripper, urls []string, ops string) http.RoundTripper {
	tb.Helper()
	shared, err := openAPIDoc()
	if err != nil {
		tb.Fatal(err)
	}
	doc := *shared
	doc.Paths = openapi3.NewPaths()
	for path, item := range shared.Paths.Map() {
		own := *item
		doc.Paths.Set(path, &own)
	}
	partner := map[string]bool{}
	for _, sv := range doc.Servers {
		partner[sv.URL] = true
	}
	test := func(in []string) openapi3.Servers {
		var out openapi3.Servers
		for _, u := range in {
			out = append(out, &openapi3.Server{URL: u})
		}
		return out
	}
	doc.Servers = test(urls)
	for path, item := range doc.Paths.Map() {
		if len(item.Servers) == 0 {
			if urls == nil {
				doc.Paths.Delete(path)
			}
			continue
		}
		var own []string
		for _, sv := range item.Servers {
			switch {
			case partner[sv.URL]:
				own = append(own, urls...)
			case ops != "":
				own = append(own, ops)
			default:
				own = append(own, sv.URL)
			}
		}
		slices.Sort(own)
		own = slices.Compact(own)
		if len(own) == 0 {
			doc.Paths.Delete(path)
			continue
		}
		item.Servers = test(own)
	}
	r, err := gorillamux.NewRouter(&doc)
	if err != nil {
		tb.Fatal(err)
	}
	return &validatingTransport{tb: tb, base: base, router: r, partner: urls}
}

// gunzipBody decodes a gzip-coded body.
func gunzipBody(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// varyCount counts the times the Vary lines of h list field.
func varyCount(h http.Header, field string) int {
	n := 0
	for _, line := range h.Values("Vary") {
		for f := range strings.SplitSeq(line, ",") {
			if strings.EqualFold(strings.TrimSpace(f), field) {
				n++
			}
		}
	}
	return n
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := v.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if resp.Header.Get("X-Request-ID") == "" && !strings.HasPrefix(req.URL.Path, "/metrics") {
		v.tb.Errorf("%s %s: response without X-Request-ID", req.Method, req.URL.Path)
	}
	if slices.ContainsFunc(v.partner, func(u string) bool { return strings.HasPrefix(req.URL.String(), u+"/") }) &&
		varyCount(resp.Header, "Accept-Encoding") != 1 {
		v.tb.Errorf("%s %s: Vary %q, want Accept-Encoding listed once", req.Method, req.URL.Path, resp.Header.Values("Vary"))
	}
	// A client that asked for gzip itself gets the coded body (the transport decodes
	// only what it asked for); the contract describes the decoded one.
	if resp.Header.Get("Content-Encoding") == "gzip" {
		decoded, err := gunzipBody(body)
		if err != nil {
			v.tb.Errorf("%s %s: Content-Encoding gzip, but the body is not: %v", req.Method, req.URL.Path, err)
		}
		body = decoded
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		// Unknown paths are answered 404/405 problem+json, which is all we check.
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			v.tb.Errorf("%s %s: undocumented route answered %d", req.Method, req.URL.Path, resp.StatusCode)
		} else if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			v.tb.Errorf("%s %s: %d with Content-Type %q", req.Method, req.URL.Path, resp.StatusCode, ct)
		}
		return resp, nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: resp.StatusCode,
		Header: resp.Header,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	if resp.StatusCode == http.StatusNotModified {
		in.Body = io.NopCloser(bytes.NewReader(nil))
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		v.tb.Errorf("%s %s → %d does not match the OpenAPI document: %v\nbody: %.500s", req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	for _, h := range undeclaredHeaders(route.Operation, resp) {
		v.tb.Errorf("%s %s → %d sends %s, which the OpenAPI document does not declare for that response", req.Method, route.Path, resp.StatusCode, h)
	}
	return resp, nil
}

// contractHeaders are the response headers with a meaning for clients; each one a
// response carries must be declared on that response in the document. (Content-Type is
// the media type, and transport headers such as Date or Content-Length are HTTP's.)
var contractHeaders = []string{
	"Allow", "Cache-Control", "Content-Language", "ETag", "Idempotency-Status", "Last-Modified", "Location",
	"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Vary", "WWW-Authenticate",
	"X-Request-ID",
}

// undeclaredHeaders lists the contract headers of resp that op does not declare for
// resp's status (or its default response).
func undeclaredHeaders(op *openapi3.Operation, resp *http.Response) []string {
	ref := op.Responses.Status(resp.StatusCode)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref == nil || ref.Value == nil {
		return nil // the status itself is reported by ValidateResponse
	}
	var missing []string
	for _, h := range contractHeaders {
		if resp.Header.Get(h) == "" {
			continue
		}
		declared := false
		for name := range ref.Value.Headers {
			if strings.EqualFold(name, h) {
				declared = true
			}
		}
		if !declared {
			missing = append(missing, h)
		}
	}
	return missing
}
