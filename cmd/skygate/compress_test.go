package main

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/skygate/skygate/internal/conditional"
)

// TestCompression: over the network, through the contract-validating clients, a
// catalog page and the OpenAPI document are gzip-coded for a client that asks, decode
// to the identity bytes and carry an ETag of their own; If-None-Match with either
// variant's tag is a 304 with the ETag the 200 would have had; the operator listener's
// /metrics is coded once, by promhttp.
func TestCompression(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(s.mustBootstrap("acme", catalogScopes), "")
	const path = "/v2/catalog/lounges?limit=20"
	identity := func(h map[string]string) map[string]string { h["Accept-Encoding"] = "identity"; return h }
	gzipped := func(h map[string]string) map[string]string { h["Accept-Encoding"] = "gzip"; return h }

	plain, plainBody := s.get(path, tok, identity(map[string]string{}))
	coded, codedBody := s.get(path, tok, gzipped(map[string]string{}))
	if plain.StatusCode != 200 || coded.StatusCode != 200 || len(plainBody) < 1024 {
		t.Fatalf("%d and %d, identity body of %d bytes (the test needs 1 KiB)", plain.StatusCode, coded.StatusCode, len(plainBody))
	}
	a, b := plain.Header.Get("ETag"), coded.Header.Get("ETag")
	if ce := plain.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("identity requested, Content-Encoding %q", ce)
	}
	if ce := coded.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("gzip requested, Content-Encoding %q", ce)
	}
	if a == "" || b != conditional.GzipETag(a) {
		t.Errorf("ETag identity %s, gzip %s: want the gzip one %s", a, b, conditional.GzipETag(a))
	}
	if decoded, err := gunzipBody(codedBody); err != nil || !bytes.Equal(decoded, plainBody) {
		t.Errorf("gzip body decodes (%v) to other bytes than the identity body", err)
	}
	if cl := coded.Header.Get("Content-Length"); len(codedBody) >= len(plainBody) || cl != "" && cl != strconv.Itoa(len(codedBody)) {
		t.Errorf("coded body of %d bytes (Content-Length %q), identity %d", len(codedBody), cl, len(plainBody))
	}
	// Go's client asks for gzip by itself and decodes the body.
	auto, autoBody := s.get(path, tok, nil)
	if !auto.Uncompressed || auto.Header.Get("ETag") != b || !bytes.Equal(autoBody, plainBody) {
		t.Errorf("Go's client: decoded %v, ETag %s, same body %v", auto.Uncompressed, auto.Header.Get("ETag"), bytes.Equal(autoBody, plainBody))
	}

	for _, tc := range []struct {
		name   string
		header map[string]string
		etag   string
	}{
		{"identity, INM identity", identity(map[string]string{"If-None-Match": a}), a},
		{"identity, INM gzip", identity(map[string]string{"If-None-Match": b}), a},
		{"gzip, INM identity", gzipped(map[string]string{"If-None-Match": a}), b},
		{"gzip, INM gzip", gzipped(map[string]string{"If-None-Match": b}), b},
		{"gzip, INM weak gzip", gzipped(map[string]string{"If-None-Match": "W/" + b}), b},
		{"gzip, IMS", gzipped(map[string]string{"If-Modified-Since": plain.Header.Get("Last-Modified")}), b},
	} {
		resp, body := s.get(path, tok, tc.header)
		if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("ETag") != tc.etag ||
			resp.Header.Get("Vary") != "Accept-Encoding, Accept-Language" || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d, %d bytes, ETag %s (want %s), Vary %q, Content-Encoding %q", tc.name, resp.StatusCode, len(body),
				resp.Header.Get("ETag"), tc.etag, resp.Header.Values("Vary"), resp.Header.Get("Content-Encoding"))
		}
	}

	for _, doc := range []string{"/openapi.yaml", "/openapi.json", "/openapi/partner.json"} {
		_, want := s.get(doc, "", identity(map[string]string{}))
		resp, body := s.get(doc, "", gzipped(map[string]string{}))
		decoded, err := gunzipBody(body)
		if resp.Header.Get("Content-Encoding") != "gzip" || err != nil || !bytes.Equal(decoded, want) {
			t.Errorf("%s: Content-Encoding %q, decoded (%v) the same: %v", doc, resp.Header.Get("Content-Encoding"), err, bytes.Equal(decoded, want))
		}
	}

	// The docs and the console arrive gzip-coded from package web when 1 KiB or more:
	// coded once, with one Vary field. They are not in the contract, so a plain client
	// fetches them.
	raw := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	for _, page := range []string{"/docs/", "/admin/"} {
		plain, want := s.do(raw, http.MethodGet, s.base+page, nil, identity(map[string]string{}))
		resp, body := s.do(raw, http.MethodGet, s.base+page, nil, gzipped(map[string]string{}))
		wantCoding, wantETag := []string(nil), plain.Header.Get("ETag")
		if page == "/docs/" && len(want) < 1024 {
			t.Errorf("/docs/ has %d bytes, too few for the test", len(want))
		}
		if len(want) >= 1024 {
			wantCoding, wantETag = []string{"gzip"}, conditional.GzipETag(wantETag)
			var err error
			if body, err = gunzipBody(body); err != nil {
				t.Errorf("%s: %v", page, err)
			}
		}
		if got := resp.Header.Values("Content-Encoding"); !slices.Equal(got, wantCoding) || !bytes.Equal(body, want) {
			t.Errorf("%s: Content-Encoding %q (want %q), decoded the same: %v", page, got, wantCoding, bytes.Equal(body, want))
		}
		if n := varyCount(resp.Header, "Accept-Encoding"); n != 1 || len(resp.Header.Values("Vary")) != 1 {
			t.Errorf("%s: Vary %q", page, resp.Header.Values("Vary"))
		}
		if etag := resp.Header.Get("ETag"); etag != wantETag {
			t.Errorf("%s: ETag %s, want %s", page, etag, wantETag)
		}
	}

	// promhttp codes /metrics itself; the operator listener adds no coding of its own.
	resp, body := s.do(s.opsClient, http.MethodGet, s.opsBase+"/metrics", nil, gzipped(map[string]string{}))
	decoded, err := gunzipBody(body)
	if got := resp.Header.Values("Content-Encoding"); len(got) != 1 || got[0] != "gzip" || err != nil ||
		!bytes.Contains(decoded, []byte("http_server_request_duration_seconds")) {
		t.Errorf("/metrics: Content-Encoding %q, decoded: %v", got, err)
	}
}
