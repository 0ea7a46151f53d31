package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/storetest"
)

// careP1 sells in Uzbekistan with an APN and a 7-day refund window; careP2 is an
// unlimited European plan without an APN, sent without refund_window_days.
const (
	careP1       = "33333333-3333-4333-8333-333333333333"
	careP2       = "44444444-4444-4444-8444-444444444444"
	carePackages = `[
 {"id":"` + careP1 + `","name":{"en":"Uzbekistan 1 GB","ru":"Узбекистан 1 ГБ","uz":"Oʻzbekiston 1 GB","kk":"Өзбекстан 1 ГБ"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":100,"currency":"USD"},"top_up":true,
  "apn":{"name":"internet.example","username":"travel","password":""},"refund_window_days":7},
 {"id":"` + careP2 + `","name":{"en":"Europe unlimited","ru":"Европа без лимита","uz":"Yevropa cheksiz","kk":"Еуропа шексіз"},"countries":["FR","DE"],"data_mb":null,"validity_days":3,"price":{"amount":200,"currency":"USD"},"apn":null}
]`
)

// TestESIMPackageAPNAndWindow: an admin sets an APN and a refund window with a
// package and reads them back; a bad APN or window is 422 at its field and changes
// nothing; a package sent again without a window keeps its own.
func TestESIMPackageAPNAndWindow(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("apnco", esimScopes, "--sandbox")
		acc := "/accounts/" + c.AccountID + "/esim/packages"
		if resp, body := s.adminCall(http.MethodPost, acc, carePackages); resp.StatusCode != http.StatusOK {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		resp, before := s.adminCall(http.MethodGet, acc, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET packages: %d %s", resp.StatusCode, before)
		}
		var cat struct {
			Packages []struct {
				ID               string          `json:"id"`
				APN              json.RawMessage `json:"apn"`
				RefundWindowDays int             `json:"refund_window_days"`
			} `json:"packages"`
		}
		storetest.MustNoError(t, json.Unmarshal(before, &cat), "packages")
		want := map[string]struct {
			apn    string
			window int
		}{
			careP1: {`{"name":"internet.example","username":"travel","password":""}`, 7},
			careP2: {`null`, 30},
		}
		for _, p := range cat.Packages {
			if w := want[p.ID]; string(p.APN) != w.apn || p.RefundWindowDays != w.window {
				t.Errorf("package %s: apn %s, refund_window_days %d; want %s, %d", p.ID, p.APN, p.RefundWindowDays, w.apn, w.window)
			}
		}
		if len(cat.Packages) != 2 {
			t.Fatalf("%d packages, want 2", len(cat.Packages))
		}

		for _, bad := range []struct{ name, patch, field string }{
			{"APN name with a space", `"apn":{"name":"internet example"}`, "[0].apn.name"},
			{"APN without a name", `"apn":{"username":"u"}`, "[0].apn.name"},
			{"APN password of 65 characters", `"apn":{"name":"a","password":"` + strings.Repeat("p", 65) + `"}`, "[0].apn.password"},
			{"refund window 400", `"refund_window_days":400`, "[0].refund_window_days"},
			{"refund window -1", `"refund_window_days":-1`, "[0].refund_window_days"},
		} {
			body := `[{"id":"` + careP1 + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},` + bad.patch + `}]`
			resp, got := s.adminCall(http.MethodPost, acc, body)
			if p := problemOf(t, resp, got); resp.StatusCode != http.StatusUnprocessableEntity || !slices.ContainsFunc(p["errors"].([]any), func(e any) bool {
				return e.(map[string]any)["field"] == bad.field
			}) {
				t.Errorf("%s: %d %s, want 422 at %s", bad.name, resp.StatusCode, got, bad.field)
			}
		}
		if _, after := s.adminCall(http.MethodGet, acc, ""); string(after) != string(before) {
			t.Errorf("refused packages changed the catalog:\n%s\n%s", before, after)
		}

		// A package written again without refund_window_days keeps its stored window;
		// its APN, left out, is cleared.
		p1 := `{"id":"` + careP1 + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"}`
		for _, tc := range []struct{ name, body string }{
			{"set to 0", `[` + p1 + `,"refund_window_days":0}]`},
			{"without the field", `[` + p1 + `}]`},
		} {
			if resp, body := s.adminCall(http.MethodPost, acc, tc.body); resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %s", tc.name, resp.StatusCode, body)
			}
			_, got := s.adminCall(http.MethodGet, acc, "")
			storetest.MustNoError(t, json.Unmarshal(got, &cat), "packages")
			for _, p := range cat.Packages {
				if p.ID == careP1 && (p.RefundWindowDays != 0 || string(p.APN) != "null") {
					t.Errorf("%s: refund_window_days %d, apn %s; want 0, null", tc.name, p.RefundWindowDays, p.APN)
				}
			}
		}
	})
}

// TestESIMInstructions: the owner reads an eSIM's steps in the negotiated language
// with its package's APN.
func TestESIMInstructions(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("instructco", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		acc := "/accounts/" + c.AccountID + "/esim"
		if resp, body := s.adminCall(http.MethodPost, acc+"/packages", carePackages); resp.StatusCode != http.StatusOK {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		csv := "iccid,smdp_address,matching_id\n"
		for range 2 {
			icc := storetest.NewICCID()
			csv += icc + ",smdp.example.com,MATCH-" + icc[10:] + "\n"
		}
		if resp, body := s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv),
			map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"}); resp.StatusCode != http.StatusCreated {
			t.Fatalf("pool: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":1000,"currency":"USD"},"description":"prepaid"}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}
		order := func(pkg string) (iccid, matchingID string) {
			resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":1}`, map[string]string{"Idempotency-Key": "care-" + pkg})
			var o struct {
				ESIMs []struct {
					ICCID      string `json:"iccid"`
					MatchingID string `json:"matching_id"`
				} `json:"esims"`
			}
			if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &o) != nil || len(o.ESIMs) != 1 {
				t.Fatalf("order %s: %d %s", pkg, resp.StatusCode, body)
			}
			return o.ESIMs[0].ICCID, o.ESIMs[0].MatchingID
		}
		withAPN, withAPNMatch := order(careP1)
		automatic, automaticMatch := order(careP2)

		type instructions struct {
			ICCID   string                   `json:"iccid"`
			IOS     struct{ Steps []string } `json:"ios"`
			Android struct{ Steps []string } `json:"android"`
			APN     map[string]any           `json:"apn"`
		}
		get := func(iccid, lang string) (*http.Response, instructions) {
			resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+iccid+"/instructions", tok, "", map[string]string{"Accept-Language": lang})
			var in instructions
			if resp.StatusCode == http.StatusOK {
				storetest.MustNoError(t, json.Unmarshal(body, &in), "instructions")
			}
			return resp, in
		}
		tests := []struct {
			name, iccid, matchingID, lang, wantLang string
			apn                                     map[string]any
			lastIOS, lastAndroid                    string
		}{
			{"APN in Russian", withAPN, withAPNMatch, "ru-RU", "ru",
				map[string]any{"automatic": false, "name": "internet.example", "username": "travel", "password": nil},
				"Сотовая сеть передачи данных", "Точки доступа (APN)"},
			{"automatic in Kazakh", automatic, automaticMatch, "kk", "kk",
				map[string]any{"automatic": true, "name": nil, "username": nil, "password": nil},
				"«Деректер роумингі»", "«Роуминг»"},
			{"unsupported language is English", automatic, automaticMatch, "de", "en",
				map[string]any{"automatic": true, "name": nil, "username": nil, "password": nil},
				"Data Roaming", "Roaming"},
			{"APN in Uzbek", withAPN, withAPNMatch, "uz", "uz",
				map[string]any{"automatic": false, "name": "internet.example", "username": "travel", "password": nil},
				"Mobil maʼlumotlar tarmogʻi", "Kirish nuqtalari (APN)"},
		}
		for _, tt := range tests {
			resp, in := get(tt.iccid, tt.lang)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Language") != tt.wantLang ||
				!strings.Contains(resp.Header.Get("Vary"), "Accept-Language") || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d, Content-Language %q, Vary %q, Cache-Control %q", tt.name, resp.StatusCode,
					resp.Header.Get("Content-Language"), resp.Header.Get("Vary"), resp.Header.Get("Cache-Control"))
				continue
			}
			if in.ICCID != tt.iccid || len(in.APN) != 4 {
				t.Errorf("%s: %+v", tt.name, in)
			}
			for k, v := range tt.apn {
				if in.APN[k] != v {
					t.Errorf("%s: apn.%s = %v, want %v", tt.name, k, in.APN[k], v)
				}
			}
			for platform, steps := range map[string][]string{tt.lastIOS: in.IOS.Steps, tt.lastAndroid: in.Android.Steps} {
				all := strings.Join(steps, " ")
				if !strings.Contains(steps[len(steps)-1], platform) || !strings.Contains(all, "smdp.example.com") || !strings.Contains(all, tt.matchingID) {
					t.Errorf("%s: steps %q, want the last to name %q and the SM-DP+ address and matching ID %s", tt.name, steps, platform, tt.matchingID)
				}
			}
		}

		// Another account's eSIM, and one that does not exist, are 404.
		other := s.mustToken(s.mustBootstrap("instructco-other", esimScopes, "--sandbox"), "")
		for name, path := range map[string]string{"another account's": withAPN, "unknown": storetest.NewICCID(), "not an ICCID": "12345"} {
			resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+path+"/instructions", other, "", nil)
			if name == "unknown" || name == "not an ICCID" {
				resp, body = s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+path+"/instructions", tok, "", nil)
			}
			if resp.StatusCode != http.StatusNotFound || problemOf(t, resp, body)["code"] != "NotFound" {
				t.Errorf("%s eSIM: %d %s", name, resp.StatusCode, body)
			}
		}
	})
}

// TestESIMPackageFilters: region, unlimited and top_up through the server, combined
// with country and name, each combination with its own ETag.
func TestESIMPackageFilters(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("filterco", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		if resp, body := s.adminCall(http.MethodPost, "/accounts/"+c.AccountID+"/esim/packages", carePackages); resp.StatusCode != http.StatusOK {
			t.Fatalf("packages: %d %s", resp.StatusCode, body)
		}
		tests := []struct {
			query string
			want  []string
		}{
			{"", []string{careP1, careP2}},
			{"region=asia", []string{careP1}},
			{"region=Europe", []string{careP2}},
			{"region=africa", nil},
			{"unlimited=true", []string{careP2}},
			{"unlimited=false", []string{careP1}},
			{"top_up=true", []string{careP1}},
			{"top_up=false", []string{careP2}},
			{"region=europe&unlimited=true&top_up=false&country=de&name=europe", []string{careP2}},
			{"region=europe&top_up=true", nil},
		}
		etags := map[string]string{}
		for _, tt := range tests {
			resp, body := s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages?"+tt.query, tok, "", nil)
			var page struct {
				Data []struct {
					ID      string   `json:"id"`
					Regions []string `json:"regions"`
				} `json:"data"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil {
				t.Errorf("%q: %d %s", tt.query, resp.StatusCode, body)
				continue
			}
			var ids []string
			for _, p := range page.Data {
				ids = append(ids, p.ID)
				if wantRegions := map[string][]string{careP1: {"asia"}, careP2: {"europe"}}[p.ID]; !slices.Equal(p.Regions, wantRegions) {
					t.Errorf("%q: package %s regions %v, want %v", tt.query, p.ID, p.Regions, wantRegions)
				}
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("%q: %v, want %v", tt.query, ids, tt.want)
			}
			etag := resp.Header.Get("ETag")
			if q, dup := etags[etag]; dup {
				t.Errorf("%q has the ETag of %q", tt.query, q)
			}
			etags[etag] = tt.query
			if resp, _ := s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages?"+tt.query, tok, "", map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusNotModified {
				t.Errorf("%q with its own ETag: %d, want 304", tt.query, resp.StatusCode)
			}
		}

		for _, bad := range []struct{ query, field string }{
			{"region=antarctica", "region"}, {"region=150", "region"}, {"unlimited=yes", "unlimited"},
			{"top_up=1", "top_up"}, {"top_up=true&top_up=false", "top_up"},
		} {
			resp, body := s.partnerCall(http.MethodGet, "/v2/catalog/esim/packages?"+bad.query, tok, "", nil)
			if p := problemOf(t, resp, body); resp.StatusCode != http.StatusBadRequest || !slices.ContainsFunc(p["errors"].([]any), func(e any) bool {
				return e.(map[string]any)["field"] == bad.field
			}) {
				t.Errorf("%q: %d %s, want 400 naming %s", bad.query, resp.StatusCode, body, bad.field)
			}
		}
	})
}
