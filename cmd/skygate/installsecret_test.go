package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/skygate/skygate"
)

// TestESIMInstallPathSecret: the install token is a bearer capability, so no log line
// and no exported span names it: the access log and the server span name the
// route's path (/esim/install/{token}) for a page, a forged token's 404, and the
// malformed paths under it (a trailing slash, more segments, another method).
func TestESIMInstallPathSecret(t *testing.T) {
	t.Parallel()
	otlp := newOTLPReceiver(t)
	s := startServer(t, testEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.srv.URL}))
	c := s.mustBootstrap("install-secret", esimScopes, "--sandbox")
	pkg := s.seedESIMCatalog(c.AccountID, 1)
	path := pagePath(t, s.mustOrderESIMs(s.mustToken(c, ""), pkg, 1)[0].Install.PageURL)
	token := strings.TrimPrefix(path, skygate.InstallPagePath)
	forged := token[:len(token)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(token, "AA")]
	// The last characters carry the MAC, the part of the token that is secret.
	secrets := []string{token, forged, token[len(token)-12:], forged[len(forged)-12:]}

	raw, _ := s.rawClients()
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, path, http.StatusOK},
		{http.MethodGet, skygate.InstallPagePath + forged, http.StatusNotFound},
		{http.MethodGet, path + "/", http.StatusNotFound},
		{http.MethodGet, path + "/more", http.StatusNotFound},
		{http.MethodPost, path, http.StatusMethodNotAllowed},
	} {
		resp, _ := s.do(raw, tc.method, s.base+tc.path, nil, nil)
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
	}
	s.stop() // flushes the spans

	log := s.stderr.String()
	for _, secret := range secrets {
		if strings.Contains(log, secret) {
			t.Errorf("the log names %q:\n%s", secret, log)
		}
	}
	pages := 0
	for _, l := range logLines(t, s) {
		if route, _ := l["route"].(string); l["msg"] == "request" && strings.Contains(route, skygate.InstallPagePath) {
			pages++
			if p, _ := l["path"].(string); !strings.HasPrefix(p, skygate.InstallPagePath+"{") {
				t.Errorf("access-log line of the page names path %q: %v", p, l)
			}
		}
	}
	if pages != 5 {
		t.Errorf("%d access-log lines of the page, want 5", pages)
	}

	spans, bodies := otlp.received()
	for _, b := range bodies {
		for _, secret := range secrets {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("the exported spans carry %q", secret)
			}
		}
	}
	found := false
	for _, sp := range spans {
		if a := attrs(sp); a["http.route"] == skygate.InstallPagePath+"{token}" {
			found = true
			if a["url.path"] != skygate.InstallPagePath+"{token}" || sp.GetName() != "GET "+skygate.InstallPagePath+"{token}" {
				t.Errorf("page span %q url.path %q", sp.GetName(), a["url.path"])
			}
		}
	}
	if !found {
		t.Errorf("no span of the page among %d", len(spans))
	}
}
