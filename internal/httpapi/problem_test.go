package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skygate/skygate/api"
	"github.com/skygate/skygate/web"
)

// Every problem type URI is a page of the docs: every code the server maps to a status
// and every code of the Problem schemas has one, and the page names the same status.
func TestEveryProblemCodeHasAPage(t *testing.T) {
	t.Parallel()
	doc, err := api.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range doc.Components.Schemas["Problem"].Value.Properties["code"].Value.Enum {
		enum = append(enum, v.(string))
	}
	// A code only some operations answer has a problem schema of its own (such as
	// CursorExpiredProblem, CommerceProblem), so that the shared list does not grow for
	// every operation.
	for name, ref := range doc.Components.Schemas {
		if code, ok := ref.Value.Properties["code"]; ok && name != "Problem" && strings.HasSuffix(name, "Problem") {
			if c, ok := code.Value.Const.(string); ok {
				enum = append(enum, c)
			}
			for _, v := range code.Value.Enum {
				enum = append(enum, v.(string))
			}
		}
	}
	pages := web.ProblemCodes()
	for code := range statusOf {
		if !slices.Contains(pages, code) {
			t.Errorf("%s: no page under /docs/problems/", code)
		}
		if !slices.Contains(enum, code) {
			t.Errorf("%s: not in the Problem schema's code enum", code)
		}
	}
	for _, code := range enum {
		if !slices.Contains(pages, code) {
			t.Errorf("%s (Problem schema): no page under /docs/problems/", code)
		}
	}
	docs := web.DocsHandler(web.DocsConfig{})
	status := regexp.MustCompile(`<code>(\d{3}) `)
	for _, code := range pages {
		rec := httptest.NewRecorder()
		docs.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, web.DocsPrefix+"/problems/"+code, nil))
		body, _ := io.ReadAll(rec.Result().Body)
		m := status.FindSubmatch(body)
		if rec.Code != http.StatusOK || m == nil {
			t.Errorf("%s: page answered %d without a status", code, rec.Code)
			continue
		}
		if want, ok := statusOf[code]; ok && string(m[1]) != strconv.Itoa(want) {
			t.Errorf("%s: the page says %s, the server answers %d", code, m[1], want)
		}
	}
}

func TestProblemTypeBase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.example":  "https://api.example/docs/problems/",
		"https://api.example/": "https://api.example/docs/problems/",
		"":                     "/docs/problems/",
	} {
		if got := problemTypeBase(in); got != want {
			t.Errorf("problemTypeBase(%q) = %q, want %q", in, got, want)
		}
	}
}
