package httpapi

import (
	"net/http"
	"strconv"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
	"github.com/skygate/skygate/internal/conditional"
	"github.com/skygate/skygate/internal/i18n"
)

// CatalogSource serves ready catalog pages. catalog.Service implements it over the
// current catalog version.
type CatalogSource interface {
	List(k catalog.Kind, lang string, q catalog.Query) (*catalog.Page, error)
	Item(k catalog.Kind, lang, id string) (*catalog.Page, error)
	// LocalizedFastTrack returns one fast-track in lang, for booking passes.
	LocalizedFastTrack(lang, id string) (*skygate.FastTrack, error)
}

// catalogList serves a page of lounges or fast-tracks for the request's query.
func (s *Server) catalogList(k catalog.Kind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := catalog.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		page, err := s.deps.Catalog.List(k, requestLanguage(r), q)
		if err != nil {
			return err
		}
		return writePage(w, r, page)
	}
}

// catalogItem serves one lounge or fast-track by id.
func (s *Server) catalogItem(k catalog.Kind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		page, err := s.deps.Catalog.Item(k, requestLanguage(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		return writePage(w, r, page)
	}
}

// writePage writes a precomputed page with its validators, or 304 when the request's
// conditional headers match (RFC 9110 §13.2.2 precedence). A 304 carries ETag, Vary and
// Cache-Control, the fields RFC 9110 §15.4.5 asks of it (the ETag that compress would
// leave on the 200: the gzip variant's when it would code the page), and not the
// representation metadata (Content-Language, Last-Modified) that the section says a
// 304 should not generate when it has an ETag.
func writePage(w http.ResponseWriter, r *http.Request, page *catalog.Page) error {
	const contentType = "application/json"
	h := w.Header()
	addVary(h, "Accept-Language")
	h.Set("Cache-Control", "private, no-cache")
	if conditional.NotModified(r, page.ETag, page.LastModified) {
		h.Set("ETag", sentETag(r, page.ETag, contentType, len(page.Body)))
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("ETag", page.ETag)
	h.Set("Content-Language", page.Language)
	if !page.LastModified.IsZero() {
		h.Set("Last-Modified", page.LastModified.UTC().Format(http.TimeFormat))
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(page.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(page.Body) //nolint:gosec // G705: a JSON page the service rendered
	return nil
}

// requestLanguage negotiates the response language from Accept-Language (its first
// field line, as Header.Get reads it).
func requestLanguage(r *http.Request) string {
	return i18n.Negotiate(r.Header.Get("Accept-Language"))
}

// contentLanguage negotiates the response language of localized names and says it.
func contentLanguage(w http.ResponseWriter, r *http.Request) string {
	lang := requestLanguage(r)
	w.Header().Set("Content-Language", lang)
	return lang
}
