package devidp

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HTTPClient returns a client for skygate's back channel to the provider: requests to
// the provider's own URLs are served by its handler in-process, without the network;
// every other request goes through next (http.DefaultTransport when nil).
//
// skygate reaches the provider at SKYGATE_PUBLIC_URL, which names the public address
// (a proxy, a hostname only the browser resolves) rather than the listener, so calling
// it over the network would fail in exactly the setups the dev IdP is for.
func (p *Provider) HTTPClient(next http.RoundTripper) *http.Client {
	if next == nil {
		next = http.DefaultTransport
	}
	iss, _ := url.Parse(p.cfg.Issuer) // checked by New
	return &http.Client{
		Transport: &inProcess{p: p, scheme: iss.Scheme, host: iss.Host, next: next},
		Timeout:   30 * time.Second,
	}
}

// inProcess is the RoundTripper of HTTPClient.
type inProcess struct {
	p            *Provider
	scheme, host string
	next         http.RoundTripper
}

func (t *inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL
	if !strings.EqualFold(u.Scheme, t.scheme) || !strings.EqualFold(u.Host, t.host) ||
		!strings.HasPrefix(u.Path, t.p.Pattern()) {
		return t.next.RoundTrip(req)
	}
	in := req.Clone(req.Context())
	in.RequestURI = u.RequestURI()
	in.Host = u.Host
	in.RemoteAddr = "in-process"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := &recorder{header: http.Header{}}
	t.p.Handler().ServeHTTP(rec, in)
	if req.Body != nil {
		_ = req.Body.Close() // a RoundTripper always closes the request body
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(rec.status) + " " + http.StatusText(rec.status),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		Body:          io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()),
		Request:       req,
	}, nil
}

// recorder is the http.ResponseWriter of an in-process request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
