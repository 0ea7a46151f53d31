package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// catalogPage is the body of a catalog list.
type catalogPage struct {
	Data []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Hub  struct {
			Meta struct{ IATA string } `json:"meta"`
		} `json:"hub"`
		Location struct{ Country, City string } `json:"location"`
	} `json:"data"`
	Pagination struct{ Count, Offset, Total int } `json:"pagination"`
}

func mustPage(tb testing.TB, body []byte) catalogPage {
	tb.Helper()
	var p catalogPage
	if err := json.Unmarshal(body, &p); err != nil {
		tb.Fatalf("%v: %.300s", err, body)
	}
	return p
}

func TestCatalogQueries(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	c := s.mustBootstrap("acme", catalogScopes)
	tok := s.mustToken(c, "")

	all := mustPage(t, mustGet200(t, s, "/v2/catalog/lounges", tok, nil))
	if all.Pagination.Total < 12 || all.Pagination.Count != all.Pagination.Total || all.Pagination.Offset != 0 {
		t.Fatalf("pagination %+v", all.Pagination)
	}
	for _, tc := range []struct {
		path      string
		lang      string
		wantTotal func(int) bool
		check     func(catalogPage) bool
	}{
		{"/v2/catalog/lounges?limit=2&offset=1", "", func(n int) bool { return n == all.Pagination.Total }, func(p catalogPage) bool {
			return p.Pagination.Count == 2 && p.Pagination.Offset == 1 && p.Data[0].ID == all.Data[1].ID
		}},
		{"/v2/catalog/lounges?offset=1000", "", func(n int) bool { return n == all.Pagination.Total }, func(p catalogPage) bool { return len(p.Data) == 0 && p.Pagination.Count == 0 }},
		{"/v2/catalog/lounges?iata=tas", "", func(n int) bool { return n >= 2 }, func(p catalogPage) bool { return allHub(p, "TAS") }},
		{"/v2/catalog/lounges?country=KZ", "", func(n int) bool { return n >= 3 }, func(p catalogPage) bool { return allCountry(p, "KZ") }},
		{"/v2/catalog/lounges?name=plaza", "", func(n int) bool { return n == 2 }, func(p catalogPage) bool { return allNames(p, "Plaza") }},
		{"/v2/catalog/lounges?name=" + urlq("ЗАЛ PLAZA"), "ru", func(n int) bool { return n == 1 }, func(p catalogPage) bool { return allNames(p, "Plaza") }},
		{"/v2/catalog/lounges?name=" + urlq("бизнес-зал") + "&limit=1", "ru-RU,ru;q=0.9", func(n int) bool { return n > 5 }, func(p catalogPage) bool { return p.Pagination.Count == 1 }},
		{"/v2/catalog/lounges?name=", "", func(n int) bool { return n == all.Pagination.Total }, nil},
		{"/v2/catalog/fast-tracks?iata=DXB", "kk", func(n int) bool { return n >= 1 }, nil},
	} {
		t.Run(tc.path+" "+tc.lang, func(t *testing.T) {
			body := mustGet200(t, s, tc.path, tok, map[string]string{"Accept-Language": tc.lang})
			p := mustPage(t, body)
			if !tc.wantTotal(p.Pagination.Total) || (tc.check != nil && !tc.check(p)) {
				t.Errorf("unexpected page: %+v", p)
			}
		})
	}

	for _, bad := range []string{"limit=0", "limit=501", "limit=abc", "offset=-1", "offset=1000001", "iata=TA", "country=KAZ", "name=" + strings.Repeat("x", 65), "limit=1&limit=2"} {
		resp, body := s.get("/v2/catalog/lounges?"+bad, tok, nil)
		if p := problemOf(t, resp, body); resp.StatusCode != 400 || p["code"] != "BadRequest" {
			t.Errorf("%s: %d %v", bad, resp.StatusCode, p)
		}
	}

	// The access log names the request, the account and the client.
	logged := false
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(line, `"msg":"request"`) && strings.Contains(line, `"route":"GET /v2/catalog/lounges"`) &&
			strings.Contains(line, `"account_id":"`+c.AccountID+`"`) && strings.Contains(line, `"sub":"`+c.ClientID+`"`) && strings.Contains(line, `"request_id":"`) {
			logged = true
			break
		}
	}
	if !logged {
		t.Error("no access log line with route, account_id, sub and request_id")
	}

	// Single items, and unknown ids.
	id := all.Data[0].ID
	body := mustGet200(t, s, "/v2/catalog/lounges/"+id, tok, nil)
	if !strings.Contains(string(body), id) {
		t.Errorf("item body %.200s", body)
	}
	for _, path := range []string{"/v2/catalog/lounges/00000000-0000-0000-0000-000000000000", "/v2/catalog/fast-tracks/" + id, "/v2/catalog/lounges/not-a-uuid"} {
		if resp, body := s.get(path, tok, nil); resp.StatusCode != 404 || problemOf(t, resp, body)["code"] != "NotFound" {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
}

func mustGet200(tb testing.TB, s *testServer, path, tok string, h map[string]string) []byte {
	tb.Helper()
	resp, body := s.get(path, tok, h)
	if resp.StatusCode != 200 {
		tb.Fatalf("GET %s: %d %.300s", path, resp.StatusCode, body)
	}
	return body
}

func urlq(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, " ", "%20"), "&", "%26") }

func allHub(p catalogPage, iata string) bool {
	for _, d := range p.Data {
		if d.Hub.Meta.IATA != iata {
			return false
		}
	}
	return len(p.Data) > 0
}

func allCountry(p catalogPage, c string) bool {
	for _, d := range p.Data {
		if d.Location.Country != c {
			return false
		}
	}
	return len(p.Data) > 0
}

func allNames(p catalogPage, sub string) bool {
	for _, d := range p.Data {
		if !strings.Contains(d.Name, sub) {
			return false
		}
	}
	return len(p.Data) > 0
}

func TestCatalogLanguages(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(s.mustBootstrap("acme", catalogScopes), "")
	const tas = "/v2/catalog/lounges?iata=TAS&limit=1"
	for _, tc := range []struct {
		header, lang, city string
	}{
		{"", "en", "Tashkent"},
		{"ru", "ru", "Ташкент"},
		{"ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru", "Ташкент"},
		{"uz-Latn-UZ", "uz", "Toshkent"},
		{"uz-Cyrl", "uz", "Toshkent"},
		{"kk-KZ", "kk", "Ташкент"},
		{"fr-FR, de;q=0.9", "en", "Tashkent"},
		{"de, kk;q=0.1", "kk", "Ташкент"},
		{"kk;q=0.5, ru;q=0.8", "ru", "Ташкент"},
		{"ru;q=0, uz", "uz", "Toshkent"},
		{"*", "en", "Tashkent"},
		{";;;", "en", "Tashkent"},
		{"x-klingon", "en", "Tashkent"},
		{strings.Repeat("zz-ZZ, ", 500) + "ru", "en", "Tashkent"},
	} {
		t.Run(tc.header, func(t *testing.T) {
			resp, body := s.get(tas, tok, map[string]string{"Accept-Language": tc.header})
			if resp.StatusCode != 200 || resp.Header.Get("Content-Language") != tc.lang {
				t.Fatalf("%d Content-Language %q, want %q", resp.StatusCode, resp.Header.Get("Content-Language"), tc.lang)
			}
			if p := mustPage(t, body); len(p.Data) != 1 || p.Data[0].Location.City != tc.city {
				t.Errorf("city %+v, want %s", p.Data, tc.city)
			}
			if resp.Header.Get("Vary") != "Accept-Encoding, Accept-Language" || resp.Header.Get("Cache-Control") != "private, no-cache" {
				t.Errorf("Vary %q Cache-Control %q", resp.Header.Get("Vary"), resp.Header.Get("Cache-Control"))
			}
		})
	}
	// Error responses say their (English) language too.
	resp, _ := s.get("/v2/catalog/lounges?limit=0", tok, map[string]string{"Accept-Language": "ru"})
	if resp.Header.Get("Content-Language") != "en" {
		t.Errorf("problem Content-Language %q", resp.Header.Get("Content-Language"))
	}
}

func TestCatalogConditionalRequests(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, nil))
	tok := s.mustToken(s.mustBootstrap("acme", catalogScopes), "")
	const path = "/v2/catalog/lounges?limit=5"
	resp, _ := s.get(path, tok, nil)
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	lm, err := http.ParseTime(lastMod)
	if etag == "" || err != nil {
		t.Fatalf("ETag %q Last-Modified %q", etag, lastMod)
	}
	ruResp, _ := s.get(path, tok, map[string]string{"Accept-Language": "ru"})
	otherQuery, _ := s.get("/v2/catalog/lounges?limit=6", tok, nil)
	if ruResp.Header.Get("ETag") == etag || otherQuery.Header.Get("ETag") == etag {
		t.Fatalf("ETag must differ per language and query: %s %s %s", etag, ruResp.Header.Get("ETag"), otherQuery.Header.Get("ETag"))
	}
	weak := "W/" + etag
	later := lm.Add(time.Hour).Format(http.TimeFormat)
	earlier := lm.Add(-time.Hour).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no conditions", nil, 200},
		{"INM exact", map[string]string{"If-None-Match": etag}, 304},
		{"INM weak form", map[string]string{"If-None-Match": weak}, 304},
		{"INM in a list", map[string]string{"If-None-Match": `"nope", ` + etag + `, "x"`}, 304},
		{"INM star", map[string]string{"If-None-Match": "*"}, 304},
		{"INM other", map[string]string{"If-None-Match": `"nope"`}, 200},
		{"INM of another language", map[string]string{"If-None-Match": ruResp.Header.Get("ETag")}, 200},
		{"INM garbage", map[string]string{"If-None-Match": `nope, W/`}, 200},
		{"IMS equal", map[string]string{"If-Modified-Since": lastMod}, 304},
		{"IMS later", map[string]string{"If-Modified-Since": later}, 304},
		{"IMS earlier", map[string]string{"If-Modified-Since": earlier}, 200},
		{"IMS invalid", map[string]string{"If-Modified-Since": "yesterday"}, 200},
		{"INM mismatch wins over IMS", map[string]string{"If-None-Match": `"nope"`, "If-Modified-Since": later}, 200},
		{"INM match with old IMS", map[string]string{"If-None-Match": etag, "If-Modified-Since": earlier}, 304},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := s.get(path, tok, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if resp.Header.Get("ETag") != etag || resp.Header.Get("Vary") != "Accept-Encoding, Accept-Language" || resp.Header.Get("Cache-Control") != "private, no-cache" {
				t.Errorf("headers ETag %q Vary %q Cache-Control %q", resp.Header.Get("ETag"), resp.Header.Get("Vary"), resp.Header.Get("Cache-Control"))
			}
			// RFC 9110 §15.4.5: a 304 carries the validators and caching fields of
			// the 200 it stands for, not its representation metadata.
			wantLang, wantLM := "en", lastMod
			if tc.status == 304 {
				wantLang, wantLM = "", ""
				if len(body) != 0 {
					t.Errorf("304 with a body of %d bytes", len(body))
				}
			}
			if got := resp.Header.Get("Content-Language"); got != wantLang {
				t.Errorf("Content-Language %q, want %q", got, wantLang)
			}
			if got := resp.Header.Get("Last-Modified"); got != wantLM {
				t.Errorf("Last-Modified %q, want %q", got, wantLM)
			}
		})
	}
	// Items are conditional too.
	id := mustPage(t, mustGet200(t, s, path, tok, nil)).Data[0].ID
	resp, _ = s.get("/v2/catalog/lounges/"+id, tok, nil)
	if resp2, _ := s.get("/v2/catalog/lounges/"+id, tok, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp2.StatusCode != 304 {
		t.Errorf("item INM: %d", resp2.StatusCode)
	}
}
