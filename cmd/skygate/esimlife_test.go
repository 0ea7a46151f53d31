package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The life of an eSIM after its sale through the server: the sandbox's profile
// reports, the account's usage thresholds, and the events both write.

// mustOrderICCIDs orders n eSIMs of package pkg for tok and returns their ICCIDs.
func (s *testServer) mustOrderICCIDs(tok, pkg string, n int) []string {
	s.t.Helper()
	var out []string
	for _, e := range s.mustOrderESIMs(tok, pkg, n) {
		out = append(out, e.ICCID)
	}
	return out
}

// esimEvents returns the events of the account's eSIM iccid in the outbox, in order.
func (s *testServer) esimEvents(db database, accountID, iccid string) []*skygate.Event {
	s.t.Helper()
	events, err := db.EventsAfter(s.t.Context(), 0, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []*skygate.Event
	for _, ev := range events {
		if ev.AccountID == accountID && strings.Contains(string(ev.Data), `"iccid":"`+iccid+`"`) {
			out = append(out, ev)
		}
	}
	return out
}

func eventTypes(events []*skygate.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Type
	}
	return out
}

func TestESIMProfileRoute(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("profiles", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		pkg := s.seedESIMCatalog(c.AccountID, 2)
		iccids := s.mustOrderICCIDs(tok, pkg, 2)
		iccid, canceled := iccids[0], iccids[1]
		db := s.openStore()
		report := func(iccid, state string) (*http.Response, []byte) {
			return s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/profile", tok, `{"state":"`+state+`"}`, nil)
		}

		for _, step := range []struct {
			state, status, events string
		}{
			{"Downloaded", "Assigned", "esim.profile.changed"},
			{"Downloaded", "Assigned", ""}, // the same state: nothing
			{"Installed", "Installed", "esim.profile.changed esim.status.changed"},
			{"Enabled", "Installed", "esim.profile.changed"},
			{"Disabled", "Installed", "esim.profile.changed"},
			{"Enabled", "Installed", "esim.profile.changed"},
		} {
			before := len(s.esimEvents(db, c.AccountID, iccid))
			resp, body := report(iccid, step.state)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"profile_state":"`+step.state+`"`) ||
				!strings.Contains(string(body), `"status":"`+step.status+`"`) || !strings.Contains(string(body), `"activation_code":"LPA:1$`) {
				t.Fatalf("profile %s: %d %s", step.state, resp.StatusCode, body)
			}
			events := s.esimEvents(db, c.AccountID, iccid)[before:]
			if got := strings.Join(eventTypes(events), " "); got != step.events {
				t.Errorf("profile %s wrote events %q, want %q", step.state, got, step.events)
			}
			for _, ev := range events {
				if ev.Type == skygate.EventESIMProfileChanged && !strings.Contains(string(ev.Data), `"profile_state":"`+step.state+`"`) {
					t.Errorf("profile %s: event %s", step.state, ev.Data)
				}
			}
		}

		// Moves the machine refuses are 409 InvalidESIMStatus (ESIMProblem), an unknown
		// state 422 at state; neither writes anything.
		before := len(s.esimEvents(db, c.AccountID, iccid))
		for _, bad := range []struct {
			state  string
			status int
			code   string
		}{
			{"Released", 409, "InvalidESIMStatus"},
			{"Downloaded", 409, "InvalidESIMStatus"},
			{"Bogus", 422, "ValidationFailed"},
			{"", 422, "ValidationFailed"},
		} {
			resp, body := report(iccid, bad.state)
			p := problemOf(t, resp, body)
			if resp.StatusCode != bad.status || p["code"] != bad.code {
				t.Errorf("profile %q: %d %v", bad.state, resp.StatusCode, p)
			}
			if bad.status == 422 && !strings.Contains(string(body), `"field":"state"`) {
				t.Errorf("profile %q: the problem does not name state: %s", bad.state, body)
			}
		}
		if resp, body := report(iccid, "Deleted"); resp.StatusCode != http.StatusOK {
			t.Fatalf("profile Deleted: %d %s", resp.StatusCode, body)
		}
		before++ // the delete's esim.profile.changed
		if resp, body := report(iccid, "Enabled"); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "InvalidESIMStatus" {
			t.Errorf("profile Enabled after Deleted: %d %s", resp.StatusCode, body)
		}
		if got := len(s.esimEvents(db, c.AccountID, iccid)); got != before {
			t.Errorf("refused reports wrote %d events", got-before)
		}

		// A Canceled eSIM's profile does not change.
		_, err := db.UpdateESIM(t.Context(), c.AccountID, canceled, time.Now(), func(_, after *skygate.ESIM) ([]*skygate.Event, error) {
			return nil, after.Cancel(time.Now())
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp, body := report(canceled, "Downloaded"); resp.StatusCode != 409 || problemOf(t, resp, body)["code"] != "InvalidESIMStatus" {
			t.Errorf("profile of a Canceled eSIM: %d %s", resp.StatusCode, body)
		}

		// Another account's eSIM is not found; a production application may not report.
		other := s.mustToken(s.mustBootstrap("profiles-rival", esimScopes, "--sandbox"), "")
		if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/profile", other, `{"state":"Enabled"}`, nil); resp.StatusCode != 404 {
			t.Errorf("other account's profile report: %d %s", resp.StatusCode, body)
		}
		prod := s.mustToken(s.mustBootstrap("profiles-prod", esimScopes), "")
		if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/profile", prod, `{"state":"Enabled"}`, nil); resp.StatusCode != 403 {
			t.Errorf("production application's profile report: %d %s", resp.StatusCode, body)
		}
	})
}

func TestESIMSettingsRoutes(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a := s.mustBootstrap("settings-a", esimScopes, "--sandbox")
		tokA := s.mustToken(a, "")
		tokB := s.mustToken(s.mustBootstrap("settings-b", esimScopes, "--sandbox"), "")
		get := func(tok string) string {
			t.Helper()
			resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esim/settings", tok, "", nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("GET settings: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
			}
			return strings.TrimSpace(string(body))
		}
		patch := func(tok, body string) (*http.Response, string) {
			resp, got := s.partnerCall(http.MethodPatch, "/v2/b2b/esim/settings", tok, body, nil)
			return resp, strings.TrimSpace(string(got))
		}
		const defaults = `{"usage_thresholds":[80,100]}`
		if got := get(tokA); got != defaults {
			t.Errorf("default settings: %s", got)
		}
		if resp, body := patch(tokA, `{"usage_thresholds":[50,80,100]}`); resp.StatusCode != http.StatusOK || body != `{"usage_thresholds":[50,80,100]}` {
			t.Fatalf("PATCH settings: %d %s", resp.StatusCode, body)
		}
		if got := get(tokA); got != `{"usage_thresholds":[50,80,100]}` {
			t.Errorf("settings after PATCH: %s", got)
		}
		// Settings are the account's: B still has the defaults, and B's PATCH leaves A's.
		if got := get(tokB); got != defaults {
			t.Errorf("B's settings after A's PATCH: %s", got)
		}
		if resp, body := patch(tokB, `{"usage_thresholds":[25]}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("B's PATCH: %d %s", resp.StatusCode, body)
		}
		if got := get(tokA); got != `{"usage_thresholds":[50,80,100]}` {
			t.Errorf("A's settings after B's PATCH: %s", got)
		}

		// Every problem at once, nothing changed.
		resp, body := patch(tokA, `{"usage_thresholds":[0,101,50]}`)
		var p struct {
			Code   string               `json:"code"`
			Errors []skygate.FieldError `json:"errors"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil || resp.StatusCode != 422 || p.Code != "ValidationFailed" || len(p.Errors) != 3 {
			t.Errorf("invalid settings: %d %v %s", resp.StatusCode, err, body)
		}
		if got := get(tokA); got != `{"usage_thresholds":[50,80,100]}` {
			t.Errorf("settings after a refused PATCH: %s", got)
		}
		// An empty list is allowed: no esim.usage.threshold at all.
		if resp, body := patch(tokB, `{"usage_thresholds":[]}`); resp.StatusCode != http.StatusOK || body != `{"usage_thresholds":[]}` {
			t.Errorf("empty list: %d %s", resp.StatusCode, body)
		}
		// A read token may not PATCH.
		read := s.mustToken(a, skygate.ScopeESIMRead)
		if resp, body := patch(read, `{"usage_thresholds":[50]}`); resp.StatusCode != 403 {
			t.Errorf("PATCH with esim:read: %d %s", resp.StatusCode, body)
		}
	})
}

// TestESIMCustomUsageThresholds: an account's own thresholds fire once each per
// allowance; a settings change does not fire again what was already sent.
func TestESIMCustomUsageThresholds(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("thresholds", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		pkg := s.seedESIMCatalog(c.AccountID, 1)
		iccid := s.mustOrderICCIDs(tok, pkg, 1)[0]
		if resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/esim/settings", tok, `{"usage_thresholds":[50,80,100]}`, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("settings: %d %s", resp.StatusCode, body)
		}
		for _, step := range []struct{ path, body string }{{"install", ""}, {"activate", ""}} {
			if resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/"+step.path, tok, step.body, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %s", step.path, resp.StatusCode, body)
			}
		}
		db := s.openStore()
		thresholds := func() []int {
			var out []int
			for _, ev := range s.esimEvents(db, c.AccountID, iccid) {
				if ev.Type != skygate.EventESIMUsageThreshold {
					continue
				}
				var d skygate.ESIMUsageThresholdData
				if err := json.Unmarshal(ev.Data, &d); err != nil {
					t.Fatal(err)
				}
				out = append(out, d.Threshold)
			}
			return out
		}
		for _, step := range []struct {
			used int
			want string
		}{
			{400, "[]"}, {500, "[50]"}, {700, "[50]"}, {800, "[50 80]"}, {900, "[50 80]"},
		} {
			resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/usage", tok, `{"used_mb":`+strconv.Itoa(step.used)+`}`, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("usage %d: %d %s", step.used, resp.StatusCode, body)
			}
			if got := fmtInts(thresholds()); got != step.want {
				t.Errorf("after %d MB: thresholds sent %s, want %s", step.used, got, step.want)
			}
		}
		// 50 and 80 were sent; a new list with 60 and 90 does not send 50 or 80 again,
		// sends 60 (already past) with the next report and 90 when reached.
		if resp, body := s.partnerCall(http.MethodPatch, "/v2/b2b/esim/settings", tok, `{"usage_thresholds":[50,60,80,90,100]}`, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("settings: %d %s", resp.StatusCode, body)
		}
		resp, body := s.partnerCall(http.MethodPost, "/v2/sandbox/esims/"+iccid+"/usage", tok, `{"used_mb":1000}`, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"Depleted"`) {
			t.Fatalf("usage 1000: %d %s", resp.StatusCode, body)
		}
		if got := fmtInts(thresholds()); got != "[50 80 60 90 100]" {
			t.Errorf("thresholds sent %s, want [50 80 60 90 100]", got)
		}
	})
}

func fmtInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
