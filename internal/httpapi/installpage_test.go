package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
)

// TestInstallTextsComplete: the page has every sentence in every language, and a name
// for every status.
func TestInstallTextsComplete(t *testing.T) {
	t.Parallel()
	for _, lang := range skygate.Languages {
		txt := installTexts[lang]
		if txt == nil {
			t.Fatalf("no install page text in %s", lang)
		}
		v := reflect.ValueOf(*txt)
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.String && f.String() == "" {
				t.Errorf("%s: %s is empty", lang, v.Type().Field(i).Name)
			}
		}
		for _, st := range skygate.ESIMStatuses {
			if txt.Statuses[st] == "" {
				t.Errorf("%s: no name for status %s", lang, st)
			}
		}
	}
}

func TestPlatformOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ua, want string }{
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", platformIOS},
		{"Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X)", platformIOS},
		{"Mozilla/5.0 (iPod touch; CPU iPhone OS 15_0 like Mac OS X)", platformIOS},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36", platformAndroid},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36", platformOther},
		{"", platformOther},
		{strings.Repeat("x", 10000), platformOther},
	} {
		if got := platformOf(tc.ua); got != tc.want {
			t.Errorf("platformOf(%.40q) = %s, want %s", tc.ua, got, tc.want)
		}
	}
}

// TestInstallPageCSPHash: the stylesheet the page inlines is the one the policy's
// hash allows, byte for byte, and no value reaches a script or event handler.
func TestInstallPageCSPHash(t *testing.T) {
	t.Parallel()
	e := &skygate.ESIM{ICCID: "8999901000000000013", Status: skygate.ESIMAssigned, ProfileState: skygate.ProfileReleased,
		SMDPAddress: "smdp.example.com", MatchingID: `M"><script>alert(1)</script>`,
		Package: &skygate.ESIMPackageItem{Name: `<b>Plan</b>`}}
	e.ActivationCode = skygate.ActivationCode(e.SMDPAddress, e.MatchingID)
	e.InstallLinks = &skygate.ESIMInstall{LPA: e.ActivationCode, IOSURL: skygate.AppleInstallURL + "x", AndroidURL: e.ActivationCode}
	for _, platform := range []string{platformIOS, platformAndroid, platformOther} {
		v := &installView{Lang: "en", Platform: platform, CSS: installStyle, T: installTexts["en"], Heading: "h",
			ESIM: installViewOf(&esim.InstallPage{ESIM: e, Installable: true, QR: []byte{1, 2, 3}}, installTexts["en"], platform)}
		var buf bytes.Buffer
		if err := installTemplate.Execute(&buf, v); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
		if m == nil || !strings.Contains(installCSP, "'sha256-"+sha256Base64(m[1])+"'") {
			t.Fatalf("%s: the inline stylesheet does not match the policy %q", platform, installCSP)
		}
		if strings.Contains(page, "<script") || strings.Contains(page, "<b>") {
			t.Errorf("%s: a value reached the page unescaped:\n%s", platform, page)
		}
		first := strings.Index(page, `id="`+installBlocks[platform][0]+`"`)
		for _, other := range installBlocks[platform][1:] {
			if i := strings.Index(page, `id="`+other+`"`); first < 0 || i < first {
				t.Errorf("%s: %s is not after %s", platform, other, installBlocks[platform][0])
			}
		}
	}
}

// TestRedactSecretPath: for a route whose path is secret, the logged path is the
// pattern's and error text loses the path and the wildcard values; other routes are
// logged as they are.
func TestRedactSecretPath(t *testing.T) {
	t.Parallel()
	s := &Server{}
	s.declareSecret("GET /esim/install/{token}")
	r := httptest.NewRequest(http.MethodGet, "/esim/install/s3cretTok", nil)
	r.Pattern = "GET /esim/install/{token}"
	r.SetPathValue("token", "s3cretTok")
	if got := s.loggedPath(r); got != "/esim/install/{token}" {
		t.Errorf("loggedPath = %q", got)
	}
	if got := s.redact(r, "no page at /esim/install/s3cretTok: token s3cretTok"); got != "no page at /esim/install/{token}: token {token}" {
		t.Errorf("redact = %q", got)
	}
	open := httptest.NewRequest(http.MethodGet, "/v2/b2b/esims/89", nil)
	open.Pattern = "GET /v2/b2b/esims/{iccid}"
	open.SetPathValue("iccid", "89")
	if got := s.loggedPath(open); got != "/v2/b2b/esims/89" {
		t.Errorf("loggedPath of an open route = %q", got)
	}
	if got := s.redact(open, "eSIM 89"); got != "eSIM 89" {
		t.Errorf("redact of an open route = %q", got)
	}
}

// TestInstallTextsUzbekApostrophes: the page's Uzbek writes oʻ and gʻ with ʻ (U+02BB)
// and the apostrophe with ʼ (U+02BC), as the rest of the service does, never with the
// quotation marks ‘ (U+2018) or ’ (U+2019).
func TestInstallTextsUzbekApostrophes(t *testing.T) {
	t.Parallel()
	uz := installTexts[skygate.LangUZ]
	texts := map[string]string{}
	v := reflect.ValueOf(*uz)
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			texts[v.Type().Field(i).Name] = f.String()
		}
	}
	for st, name := range uz.Statuses {
		texts["Statuses["+string(st)+"]"] = name
	}
	for field, text := range texts {
		if strings.ContainsAny(text, "\u2018\u2019") {
			t.Errorf("uz %s %q has ‘ or ’; write ʻ (U+02BB) or ʼ (U+02BC)", field, text)
		}
	}
}

// TestInstallStateMessage: the sentence for each eSIM the page cannot install.
func TestInstallStateMessage(t *testing.T) {
	t.Parallel()
	en := installTexts[skygate.LangEN]
	for _, tc := range []struct {
		status  skygate.ESIMStatus
		profile skygate.ProfileState
		want    string
	}{
		{skygate.ESIMCanceled, skygate.ProfileReleased, en.Cancel},
		{skygate.ESIMExpired, skygate.ProfileDeleted, en.Expired},
		{skygate.ESIMAssigned, skygate.ProfileDownloaded, en.Downloaded},
		{skygate.ESIMAssigned, skygate.ProfileInstalled, en.Installed},
		{skygate.ESIMAssigned, skygate.ProfileDisabled, en.Installed},
		{skygate.ESIMAssigned, skygate.ProfileDeleted, en.Deleted},
		{skygate.ESIMActive, skygate.ProfileEnabled, en.Installed},
		{skygate.ESIMActive, skygate.ProfileDeleted, en.Deleted},
		{skygate.ESIMInstalled, skygate.ProfileInstalled, en.Installed},
	} {
		if got := en.stateMessage(&skygate.ESIM{Status: tc.status, ProfileState: tc.profile}); got != tc.want {
			t.Errorf("%s/%s: %q, want %q", tc.status, tc.profile, got, tc.want)
		}
	}
}
