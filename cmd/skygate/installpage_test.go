package main

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/seal"
)

// User-Agents of the platforms the install page tells apart.
const (
	iPhoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	androidUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
	desktopUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)

// installJSON is an eSIM's install links as the API answers them.
type installJSON struct {
	LPA        string `json:"lpa"`
	IOSURL     string `json:"ios_url"`
	AndroidURL string `json:"android_url"`
	PageURL    string `json:"page_url"`
}

// installedESIM is an eSIM of an order answer, with what the page shows of it.
type installedESIM struct {
	ICCID          string      `json:"iccid"`
	SMDPAddress    string      `json:"smdp_address"`
	MatchingID     string      `json:"matching_id"`
	ActivationCode string      `json:"activation_code"`
	Install        installJSON `json:"install"`
}

// pagePath is the path of an install link's page on the test server: page_url names
// the public URL, which no test server listens on.
func pagePath(tb testing.TB, pageURL string) string {
	tb.Helper()
	rest, ok := strings.CutPrefix(pageURL, testPublicURL+skygate.InstallPagePath)
	if !ok || rest == "" {
		tb.Fatalf("page_url %q is not under %s", pageURL, testPublicURL+skygate.InstallPagePath)
	}
	return skygate.InstallPagePath + rest
}

// mustOrderESIMs orders n eSIMs of pkg and returns them as the order answers them.
func (s *testServer) mustOrderESIMs(tok, pkg string, n int) []installedESIM {
	s.t.Helper()
	resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":`+strconv.Itoa(n)+`}`,
		map[string]string{"Idempotency-Key": "install-" + skygate.NewID()})
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("order: %d %s", resp.StatusCode, body)
	}
	var o struct {
		ESIMs []installedESIM `json:"esims"`
	}
	if err := json.Unmarshal(body, &o); err != nil || len(o.ESIMs) != n {
		s.t.Fatalf("order body %v: %s", err, body)
	}
	return o.ESIMs
}

// page requests an install page without credentials.
func (s *testServer) page(method, path string, h map[string]string) (*http.Response, string) {
	s.t.Helper()
	resp, body := s.do(s.client, method, s.base+path, nil, h)
	return resp, string(body)
}

// wantPageHeaders fails unless resp carries the install page's headers in lang.
func wantPageHeaders(t *testing.T, what string, resp *http.Response, status int, lang string) {
	t.Helper()
	h := resp.Header
	for name, want := range map[string]string{
		"Content-Type": "text/html; charset=utf-8", "Content-Language": lang, "Cache-Control": "no-store",
		"Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow", "X-Content-Type-Options": "nosniff",
		"X-Frame-Options": "DENY", "Vary": "Accept-Encoding, Accept-Language, User-Agent",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %s %q, want %q", what, name, got, want)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "img-src data:", "frame-ancestors 'none'", "style-src 'sha256-"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, d)
		}
	}
	if strings.Contains(csp, "script") || strings.Contains(csp, "unsafe") {
		t.Errorf("%s: Content-Security-Policy %q allows too much", what, csp)
	}
	if resp.StatusCode != status {
		t.Errorf("%s: %d, want %d", what, resp.StatusCode, status)
	}
}

func TestESIMInstallPage(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("install-a", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		pkg := s.seedESIMCatalog(c.AccountID, 2)
		esims := s.mustOrderESIMs(tok, pkg, 2)
		a := esims[0]
		if a.Install.LPA != a.ActivationCode || a.Install.AndroidURL != a.ActivationCode ||
			a.Install.IOSURL != skygate.AppleInstallURL+url.QueryEscape(a.ActivationCode) {
			t.Fatalf("install links %+v of %q", a.Install, a.ActivationCode)
		}
		var got installedESIM
		_, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+a.ICCID, tok, "", nil)
		if err := json.Unmarshal(body, &got); err != nil || got.Install != a.Install {
			t.Fatalf("GET eSIM install %+v (%v), the order's %+v", got.Install, err, a.Install)
		}
		path := pagePath(t, a.Install.PageURL)

		// Each language, its headers and the manual details.
		for lang, title := range map[string]string{"en": "Install your eSIM", "ru": "Установите eSIM", "uz": "eSIMʼni oʻrnating", "kk": "eSIM орнатыңыз"} {
			resp, page := s.page(http.MethodGet, path, map[string]string{"Accept-Language": lang + ";q=0.9, de;q=0.1", "User-Agent": desktopUA})
			wantPageHeaders(t, lang, resp, http.StatusOK, lang)
			pkgName := map[string]string{"en": "Test 1 GB", "ru": "Тест 1 ГБ", "uz": "Test 1 GB", "kk": "Тест 1 ГБ"}[lang]
			for _, want := range []string{`<html lang="` + lang + `">`, title, pkgName, `data-status="Assigned"`, `id="qr" src="data:image/png;base64,`,
				`id="smdp">` + a.SMDPAddress + "<", `id="matching-id">` + a.MatchingID + "<"} {
				if !strings.Contains(page, want) {
					t.Errorf("%s page lacks %q:\n%s", lang, want, page)
				}
			}
		}

		// An iPhone gets Apple's link first; Android, which no link opens, the QR code
		// and the manual details, then the LPA: string as text to enter in Settings;
		// anything else the QR code first.
		for _, tc := range []struct {
			name, ua string
			order    []string
		}{
			{"iPhone", iPhoneUA, []string{`id="ios"`, `id="qr"`, `id="android"`, `id="smdp"`}},
			{"Android", androidUA, []string{`id="qr"`, `id="smdp"`, `id="android"`, `id="ios"`}},
			{"desktop", desktopUA, []string{`id="qr"`, `id="ios"`, `id="android"`, `id="smdp"`}},
		} {
			_, page := s.page(http.MethodGet, path, map[string]string{"User-Agent": tc.ua})
			last := -1
			for _, id := range tc.order {
				i := strings.Index(page, id)
				if i <= last {
					t.Errorf("%s: %s is not after the previous block:\n%s", tc.name, id, page)
				}
				last = i
			}
			if !strings.Contains(page, `href="`+html.EscapeString(a.Install.IOSURL)+`"`) {
				t.Errorf("%s: no link to %q:\n%s", tc.name, a.Install.IOSURL, page)
			}
			if !strings.Contains(page, `id="android-code" class="code">`+html.EscapeString(a.Install.AndroidURL)+"<") ||
				strings.Contains(page, `href="LPA:`) {
				t.Errorf("%s: the LPA: string is not text to copy, or is a link:\n%s", tc.name, page)
			}
		}

		// HEAD is GET without a body (ServeMux serves it; the document, like for every
		// route, names GET only, so a raw client asks).
		raw, _ := s.rawClients()
		resp, headBody := s.do(raw, http.MethodHead, s.base+path, nil, nil)
		if resp.StatusCode != http.StatusOK || len(headBody) != 0 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("HEAD: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), headBody)
		}
		var page string

		// Anything but a token the service minted is the same localized 404 page; a
		// token is a bearer capability, so another account's credentials change
		// nothing, and a token minted for account B naming A's eSIM finds nothing.
		other := s.mustBootstrap("install-b", esimScopes, "--sandbox")
		box, err := seal.New(s.config().MasterKey)
		if err != nil {
			t.Fatal(err)
		}
		minter := esim.New(esim.Config{InstallKey: box.DeriveKey(seal.PurposeESIMInstallLink)})
		token := strings.TrimPrefix(path, skygate.InstallPagePath)
		otherKey, err := seal.New(seal.NewMasterKey())
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]string{
			"tampered":                     path[:len(path)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(path, "AA")],
			"truncated":                    path[:len(path)-1],
			"garbage":                      skygate.InstallPagePath + "garbage",
			"another account naming A's":   skygate.InstallPagePath + minter.InstallToken(other.AccountID, a.ICCID),
			"another key":                  skygate.InstallPagePath + esim.New(esim.Config{InstallKey: otherKey.DeriveKey(seal.PurposeESIMInstallLink)}).InstallToken(c.AccountID, a.ICCID),
			"the token with a byte more":   path + "A",
			"an ICCID the account lacks":   skygate.InstallPagePath + minter.InstallToken(c.AccountID, "8999901000000000013"),
			"the token's account, no eSIM": skygate.InstallPagePath + minter.InstallToken(other.AccountID, esims[1].ICCID),
		} {
			resp, page := s.page(http.MethodGet, p, map[string]string{"Accept-Language": "ru"})
			wantPageHeaders(t, name, resp, http.StatusNotFound, "ru")
			if !strings.Contains(page, "Ссылка не найдена") || strings.Contains(page, a.MatchingID) {
				t.Errorf("%s: 404 page:\n%s", name, page)
			}
		}
		if minter.InstallToken(c.AccountID, a.ICCID) != token {
			t.Errorf("the server's token %q is not the one its key mints", token)
		}
		otherTok := s.mustToken(other, "")
		resp, page = s.page(http.MethodGet, path, map[string]string{"Authorization": "Bearer " + otherTok})
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, a.MatchingID) {
			t.Errorf("A's page with B's credentials: %d", resp.StatusCode)
		}

		// Installed: the state instead of the code, the buttons and the QR code.
		if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+a.ICCID+"/install", tok, "", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("install: %d %s", resp.StatusCode, body)
		}
		resp, page = s.page(http.MethodGet, path, map[string]string{"Accept-Language": "kk", "User-Agent": iPhoneUA})
		wantPageHeaders(t, "installed", resp, http.StatusOK, "kk")
		for _, leak := range []string{a.MatchingID, "LPA:", "esimsetup.apple.com", `id="qr"`, `id="ios"`, `id="android"`, "data:image"} {
			if strings.Contains(page, leak) {
				t.Errorf("the page of an installed eSIM shows %q:\n%s", leak, page)
			}
		}
		if !strings.Contains(page, "Бұл eSIM құрылғыға орнатылып қойған.") || !strings.Contains(page, `data-status="Installed"`) {
			t.Errorf("the page of an installed eSIM:\n%s", page)
		}
	})
}

// TestESIMInstallPageRateLimit: one source address gets a burst of pages, then a
// localized 429 page with Retry-After; another address is not affected.
func TestESIMInstallPageRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("install-limit", esimScopes, "--sandbox")
	pkg := s.seedESIMCatalog(c.AccountID, 1)
	path := pagePath(t, s.mustOrderESIMs(s.mustToken(c, ""), pkg, 1)[0].Install.PageURL)
	flood := s.clientFrom("127.0.0.61")
	var limited *http.Response
	var page []byte
	for i := range 40 {
		resp, body := s.do(flood, http.MethodGet, s.base+skygate.InstallPagePath+"guess"+strconv.Itoa(i), nil, map[string]string{"Accept-Language": "uz"})
		if resp.StatusCode == http.StatusTooManyRequests {
			limited, page = resp, body
			break
		}
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("guess %d: %d", i, resp.StatusCode)
		}
	}
	if limited == nil {
		t.Fatal("40 guesses from one address were all answered")
	}
	wantPageHeaders(t, "429", limited, http.StatusTooManyRequests, "uz")
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
	if !strings.Contains(string(page), "Soʻrovlar juda koʻp") {
		t.Errorf("429 page:\n%s", page)
	}
	if resp, _ := s.do(s.clientFrom("127.0.0.62"), http.MethodGet, s.base+path, nil, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("another address: %d", resp.StatusCode)
	}
}

// TestESIMInstallPageMalformed: a page URL with no token, a trailing slash or more
// segments is the page's localized 404, with its headers, not the API's problem+json;
// another method is the API's 405.
func TestESIMInstallPageMalformed(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("install-malformed", esimScopes, "--sandbox")
	pkg := s.seedESIMCatalog(c.AccountID, 1)
	path := pagePath(t, s.mustOrderESIMs(s.mustToken(c, ""), pkg, 1)[0].Install.PageURL)
	raw, _ := s.rawClients()
	for _, p := range []string{
		strings.TrimSuffix(skygate.InstallPagePath, "/"),
		skygate.InstallPagePath,
		path + "/",
		path + "/more",
		skygate.InstallPagePath + "a/b/c",
	} {
		resp, body := s.do(raw, http.MethodGet, s.base+p, nil, map[string]string{"Accept-Language": "kk"})
		wantPageHeaders(t, p, resp, http.StatusNotFound, "kk")
		if !strings.Contains(string(body), "Сілтеме табылмады") || strings.Contains(string(body), `id="qr"`) {
			t.Errorf("%s: 404 page:\n%s", p, body)
		}
	}
	resp, body := s.do(raw, http.MethodPost, s.base+path, nil, nil)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Content-Type") != "application/problem+json" ||
		resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %q Allow %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body)
	}
}
