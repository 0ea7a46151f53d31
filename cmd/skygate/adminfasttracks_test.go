package main

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// adminFastTrack is an item of GET /api/v1/admin/fast-tracks.
type adminFastTrack struct {
	ID                     string `json:"id"`
	Name                   string `json:"name"`
	Hub                    string `json:"hub"`
	Terminal               string `json:"terminal"`
	CapacityPerSlot        int    `json:"capacity_per_slot"`
	CatalogCapacityPerSlot int    `json:"catalog_capacity_per_slot"`
	Overridden             bool   `json:"overridden"`
}

// mustAdminFastTracks reads the employees' fast-track list in lang.
func (s *testServer) mustAdminFastTracks(lang string) []adminFastTrack {
	s.t.Helper()
	resp, body := s.do(s.client, http.MethodGet, s.base+"/api/v1/admin/fast-tracks", nil,
		map[string]string{"Authorization": "Bearer " + s.adminToken(), "Accept-Language": lang})
	var list struct {
		Data []adminFastTrack `json:"data"`
	}
	if err := json.Unmarshal(body, &list); resp.StatusCode != http.StatusOK || err != nil {
		s.t.Fatalf("admin fast-tracks: %d %.300s (%v)", resp.StatusCode, body, err)
	}
	if got := resp.Header.Get("Content-Language"); got != lang {
		s.t.Fatalf("Content-Language %q, want %q", got, lang)
	}
	return list.Data
}

// TestAdminFastTrackList covers, on both engines, the employees' list of the catalog's
// fast-tracks: every fast-track the partner catalog has, once, by hub then name, in the
// negotiated language, with the capacity an admin sets; partners' tokens are refused.
func TestAdminFastTrackList(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		partner := s.mustBootstrap("partner", catalogScopes)
		tok := s.mustToken(partner, "")

		list := s.mustAdminFastTracks("en")
		_, body := s.get("/v2/catalog/fast-tracks?limit=500", tok, nil)
		var catalogPage struct {
			Data []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &catalogPage); err != nil || len(catalogPage.Data) == 0 {
			t.Fatalf("partner catalog: %v %.300s", err, body)
		}
		if len(list) != len(catalogPage.Data) {
			t.Fatalf("admin list has %d fast-tracks, the catalog %d", len(list), len(catalogPage.Data))
		}
		for _, c := range catalogPage.Data {
			i := slices.IndexFunc(list, func(ft adminFastTrack) bool { return ft.ID == c.ID })
			if i < 0 || list[i].Name != c.Name {
				t.Fatalf("catalog fast-track %s %q not in the admin list as such", c.ID, c.Name)
			}
		}
		if !slices.IsSortedFunc(list, func(a, b adminFastTrack) int {
			return cmp.Or(cmp.Compare(a.Hub, b.Hub), cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)))
		}) {
			t.Fatalf("not ordered by hub then name: %+v", list)
		}
		for _, ft := range list {
			if ft.Overridden || ft.CapacityPerSlot != ft.CatalogCapacityPerSlot || ft.Hub == "" || ft.Terminal == "" {
				t.Fatalf("fast-track before any override: %+v", ft)
			}
		}

		ft := list[0]
		if resp, body := s.adminCall(http.MethodPut, "/fast-tracks/"+ft.ID+"/capacity", `{"capacity_per_slot":3}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("set capacity: %d %s", resp.StatusCode, body)
		}
		after := s.mustAdminFastTracks("en")
		if got := after[0]; got.ID != ft.ID || !got.Overridden || got.CapacityPerSlot != 3 || got.CatalogCapacityPerSlot != ft.CatalogCapacityPerSlot {
			t.Fatalf("after the override: %+v", got)
		}
		if !slices.Equal(after[1:], list[1:]) {
			t.Fatal("the override changed other fast-tracks")
		}

		ru := s.mustAdminFastTracks("ru")
		if len(ru) != len(list) || !slices.ContainsFunc(ru, func(r adminFastTrack) bool {
			return !slices.ContainsFunc(list, func(en adminFastTrack) bool { return en.Name == r.Name })
		}) {
			t.Fatalf("Russian names: %+v", ru)
		}

		resp, _ := s.do(s.client, http.MethodGet, s.base+"/api/v1/admin/fast-tracks", nil, map[string]string{"Authorization": "Bearer " + tok})
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("partner token on the admin fast-track list: %d", resp.StatusCode)
		}
	})
}
