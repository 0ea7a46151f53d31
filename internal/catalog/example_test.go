package catalog_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/conditional"
	"github.com/skygate/skygate/internal/i18n"
)

// Example shows the request path of GET /v2/catalog/lounges: negotiate the language,
// parse the query, take the page, and answer 304 when the client's copy is current.
func Example() {
	c, err := catalog.Load(catalog.Seed())
	if err != nil {
		panic(err)
	}
	serve := func(r *http.Request) (status int, lang string) {
		lang = i18n.Negotiate(r.Header.Get("Accept-Language"))
		q, err := catalog.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return http.StatusBadRequest, lang
		}
		page, err := c.List(catalog.KindLounge, lang, q)
		if err != nil {
			return http.StatusInternalServerError, lang
		}
		// The handler sets ETag, Vary (Accept-Encoding, Accept-Language) and
		// Cache-Control: private, no-cache on 200 and 304 alike, and Content-Language
		// and Last-Modified (when not zero) on 200 only (RFC 9110 §15.4.5).
		if conditional.NotModified(r, page.ETag, page.LastModified) {
			return http.StatusNotModified, page.Language
		}
		return http.StatusOK, page.Language
	}

	r := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges?iata=tas&limit=1", nil)
	r.Header.Set("Accept-Language", "uz-Cyrl-UZ, ru;q=0.8")
	fmt.Println(serve(r))

	page, _ := c.List(catalog.KindLounge, "uz", catalog.Query{Limit: 1, IATA: "TAS"})
	r.Header.Set("If-None-Match", `W/"stale", `+page.ETag)
	fmt.Println(serve(r))

	r = httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges?limit=0", nil)
	fmt.Println(serve(r))
	// Output:
	// 200 uz
	// 304 uz
	// 400 en
}
