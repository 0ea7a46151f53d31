package catalog_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw        string
		want       catalog.Query
		wantFields []string // parameters named by the error, nil for success
	}{
		{raw: "", want: catalog.Query{Limit: 100}},
		{raw: "limit=1&offset=0", want: catalog.Query{Limit: 1}},
		{raw: "limit=500&offset=1000000", want: catalog.Query{Limit: 500, Offset: 1_000_000}},
		{raw: "limit=&offset=&name=&iata=&country=", want: catalog.Query{Limit: 100}},
		{raw: "limit=0", wantFields: []string{"limit"}},
		{raw: "limit=501", wantFields: []string{"limit"}},
		{raw: "limit=-1", wantFields: []string{"limit"}},
		{raw: "limit=%2B5", wantFields: []string{"limit"}},
		{raw: "limit=1e2", wantFields: []string{"limit"}},
		{raw: "limit=99999999999999999999", wantFields: []string{"limit"}},
		{raw: "offset=-1", wantFields: []string{"offset"}},
		{raw: "offset=1000001", wantFields: []string{"offset"}},
		{raw: "offset=%201", wantFields: []string{"offset"}},
		{raw: "limit=1&limit=2", wantFields: []string{"limit"}},
		{raw: "name=%20T%C4%B0FL%C4%B0S%20", want: catalog.Query{Limit: 100, Name: "tiflis"}},
		{raw: "name=%D0%A2%D0%90%D0%A8", want: catalog.Query{Limit: 100, Name: "таш"}},
		{raw: "name=" + strings.Repeat("%D0%96", 64), want: catalog.Query{Limit: 100, Name: strings.Repeat("ж", 64)}},
		{raw: "name=" + strings.Repeat("%D0%96", 65), wantFields: []string{"name"}},
		{raw: "name=a%00b", wantFields: []string{"name"}},
		{raw: "name=a%0Ab", wantFields: []string{"name"}},
		{raw: "name=%FF", wantFields: []string{"name"}},
		{raw: "iata=tas", want: catalog.Query{Limit: 100, IATA: "TAS"}},
		{raw: "iata=TA", wantFields: []string{"iata"}},
		{raw: "iata=T4S", wantFields: []string{"iata"}},
		{raw: "country=uz", want: catalog.Query{Limit: 100, Country: "UZ"}},
		{raw: "country=UZB", wantFields: []string{"country"}},
		{raw: "unknown=1&sort=name", want: catalog.Query{Limit: 100}},
		{raw: "limit=0&offset=x&iata=1&country=2", wantFields: []string{"limit", "offset", "iata", "country"}},
	}
	for _, raw := range []string{"name=%zz", "limit=5;offset=1", "limit=%3&iata=xx"} {
		t.Run("malformed "+raw, func(t *testing.T) {
			t.Parallel()
			q, err := catalog.ParseQuery(raw)
			if !skygate.IsCode(err, skygate.CodeBadRequest) || !slices.ContainsFunc(err.(*skygate.Error).Fields,
				func(f skygate.FieldError) bool { return f.Field == "query" }) {
				t.Fatalf("ParseQuery(%q) = %+v, %v; want BadRequest naming query", raw, q, err)
			}
		})
	}
	// The raw query, and what url.ParseQuery makes of it written out again
	// (url.Values.Encode): both must mean the same.
	parsers := map[string]func(raw string) (catalog.Query, error){
		"ParseQuery": catalog.ParseQuery,
		"ParseQuery of url.ParseQuery": func(raw string) (catalog.Query, error) {
			v, err := url.ParseQuery(raw)
			if err != nil {
				t.Fatal(err)
			}
			return catalog.ParseQuery(v.Encode())
		},
	}
	for _, tt := range tests {
		for name, parse := range parsers {
			t.Run(name+" "+tt.raw, func(t *testing.T) {
				t.Parallel()
				got, err := parse(tt.raw)
				if tt.wantFields == nil {
					if err != nil {
						t.Fatalf("%s(%q): %v", name, tt.raw, err)
					}
					if got != tt.want {
						t.Errorf("%s(%q) = %+v, want %+v", name, tt.raw, got, tt.want)
					}
					return
				}
				if !skygate.IsCode(err, skygate.CodeBadRequest) {
					t.Fatalf("%s(%q) error = %v, want %s", name, tt.raw, err, skygate.CodeBadRequest)
				}
				var fields []string
				for _, f := range err.(*skygate.Error).Fields {
					fields = append(fields, f.Field)
				}
				slices.Sort(fields)
				want := slices.Sorted(slices.Values(tt.wantFields))
				if !slices.Equal(fields, want) {
					t.Errorf("%s(%q) names %v, want %v", name, tt.raw, fields, want)
				}
			})
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "limit=5&offset=10", "name=%D0%A2%D0%90%D0%A8&iata=tas", "limit=501", "name=%FF", "country=u%00",
		"lim%69t=5&limit=", "iata=TAS;x&country=%zz&name=a+b&&", "limit=1&limit=2&offset=%3", "name&iata="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// A query url.ParseQuery cannot decode is invalid as a whole; any other means
		// what url.ParseQuery means: the same as ParseQuery of its values written out
		// cleanly.
		v, verr := url.ParseQuery(raw)
		q, err := catalog.ParseQuery(raw)
		if verr != nil {
			if !skygate.IsCode(err, skygate.CodeBadRequest) || !slices.ContainsFunc(err.(*skygate.Error).Fields,
				func(f skygate.FieldError) bool { return f.Field == "query" }) {
				t.Fatalf("ParseQuery(%q) = %+v, %v; want BadRequest naming query (url.ParseQuery: %v)", raw, q, err, verr)
			}
			return
		}
		cq, cerr := catalog.ParseQuery(v.Encode())
		if cq != q || fmt.Sprint(cerr) != fmt.Sprint(err) {
			t.Fatalf("ParseQuery(%q) = %+v, %v; ParseQuery of url.ParseQuery = %+v, %v", raw, q, err, cq, cerr)
		}
		if err != nil {
			if !skygate.IsCode(err, skygate.CodeBadRequest) {
				t.Fatalf("error %v is not BadRequest", err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > catalog.MaxLimit || q.Offset < 0 || q.Offset > catalog.MaxOffset ||
			len(q.IATA) != 0 && len(q.IATA) != 3 || len(q.Country) != 0 && len(q.Country) != 2 {
			t.Fatalf("ParseQuery(%q) = %+v out of range", raw, q)
		}
	})
}

// TestOneValue: once and not empty is a value; absent or empty is none; twice is none
// and one problem naming the parameter.
func TestOneValue(t *testing.T) {
	t.Parallel()
	values := url.Values{"a": {"x"}, "empty": {""}, "twice": {"x", "y"}}
	for _, tc := range []struct {
		name, want string
		ok         bool
		problem    string
	}{
		{"a", "x", true, ""},
		{"absent", "", false, ""},
		{"empty", "", false, ""},
		{"twice", "", false, "twice: must be given at most once"},
	} {
		var problem string
		got, ok := catalog.OneValue(values, tc.name, func(field, msg string) { problem = field + ": " + msg })
		if got != tc.want || ok != tc.ok || problem != tc.problem {
			t.Errorf("%s: %q %v %q, want %q %v %q", tc.name, got, ok, problem, tc.want, tc.ok, tc.problem)
		}
	}
}
