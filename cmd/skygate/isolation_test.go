package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/storetest"
)

// The tenant isolation matrix: every B2B route of the router that names an object in
// its path is called by one account with another account's ids, and must answer 404
// NotFound (never 2xx, never 403, which would tell that the object exists). The route
// list comes from the router itself, so a new route is covered the day it is added; a
// route whose path parameter the matrix cannot fill fails the test until someone says
// which object it names (isolationParams). The admin reads of one account
// (GET /api/v1/admin/accounts/{accountID}/…) are in it too: an employee may read any
// account, but B's page lists nothing of A's, and A's object under B's account (or B's
// under A's) is 404.

// isolationParams maps every path parameter of a tenant-scoped route to the object of
// a tenant it names. A parameter missing here fails TestTenantIsolationMatrix.
var isolationParams = map[string]func(t *isoTenant) string{
	"accountID":  func(t *isoTenant) string { return t.creds.AccountID },
	"bookingID":  func(t *isoTenant) string { return t.bookingID },
	"orderID":    func(t *isoTenant) string { return t.orderID },
	"iccid":      func(t *isoTenant) string { return t.iccid },
	"packageID":  func(t *isoTenant) string { return t.packageID },
	"webhookID":  func(t *isoTenant) string { return t.webhookID },
	"deliveryID": func(t *isoTenant) string { return t.deliveryID },
	"eventID":    func(t *isoTenant) string { return t.eventID },
}

// valueParams are the path parameters of tenant-scoped routes that name no object but
// a value the caller picks (a statement's month): such a route reads the caller's own
// data, so the matrix checks that its answer names nothing of another account, as for
// a list.
var valueParams = map[string]func() string{
	"month": func() string { return time.Now().UTC().Format("2006-01") },
}

// fillValueParams returns path with every parameter filled from valueParams, or false
// when one of them names an object.
func fillValueParams(path string, params [][]string) (string, bool) {
	for _, p := range params {
		v, ok := valueParams[p[1]]
		if !ok {
			return "", false
		}
		path = strings.Replace(path, p[0], v(), 1)
	}
	return path, true
}

// tenantPrefixes are the path prefixes of routes whose objects belong to an account.
var tenantPrefixes = []string{"/v2/b2b/", "/api/v1/b2b/", "/v2/sandbox/", "/v2/catalog/esim/"}

// sharedRoutes name objects that every account may read: the airport catalog.
// The availability is the airport's too; only its price is the account's, read by the
// caller's account alone (httpapi.getAvailability).
var sharedRoutes = []string{"GET /v2/catalog/lounges/{id}", "GET /v2/catalog/fast-tracks/{id}",
	"GET /v2/catalog/fast-tracks/{id}/availability"}

// isolationBodies are the request bodies of POST routes, by the last path segment, so
// that the only thing wrong with a request is whose object it names. ids are the
// caller's own objects. A POST route not listed here is sent without a body.
var isolationBodies = map[string]func(own *isoTenant) string{
	"topups":        func(own *isoTenant) string { return `{"package_id":"` + own.packageID + `"}` },
	"simulate":      func(*isoTenant) string { return `{"event":"issue"}` },
	"usage":         func(*isoTenant) string { return `{"used_mb":1}` },
	"profile":       func(*isoTenant) string { return `{"state":"Downloaded"}` },
	"rotate-secret": func(*isoTenant) string { return `{"secret":"isolation-rotated-secret-0001"}` },
	"change-url":    func(own *isoTenant) string { return `{"url":"` + own.hookURL + `/moved"}` },
	"recover":       func(*isoTenant) string { return `{"since":"2020-01-01T00:00:00Z"}` },
}

// isolationPatch is the body of the tenant PATCH routes (the webhook subscription's
// filter): valid, so that the only thing wrong is whose object it names.
const isolationPatch = `{"event_types":["webhook.test"]}`

// isoTenant is an account with one object of every kind.
type isoTenant struct {
	name                                                        string
	creds                                                       credentials
	token                                                       string
	bookingID, orderID, iccid, packageID, webhookID, deliveryID string
	eventID                                                     string
	hookURL                                                     string
	// installPath is the path of the eSIM's install page (its install.page_url).
	installPath string
}

// routeList returns the partner listeners' route patterns (serverRoutes).
func routeList(t *testing.T) []string {
	t.Helper()
	partner, _ := serverRoutes(t)
	return partner
}

var pathParam = regexp.MustCompile(`\{([^}.]+)(\.\.\.)?\}`)

func TestTenantIsolationMatrix(t *testing.T) {
	t.Parallel()
	routes := routeList(t)
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		a := s.seedTenant("tenant-a")
		b := s.seedTenant("tenant-b")
		before := s.tenantSnapshot(a)

		calls := 0
		for _, route := range routes {
			method, path, _ := strings.Cut(route, " ")
			params := pathParam.FindAllStringSubmatch(path, -1)
			if strings.HasPrefix(path, adminAccountPrefix) && method == http.MethodGet {
				calls += s.checkAdminAccountRoute(t, route, params, b, a)
				continue
			}
			if strings.HasPrefix(path, "/api/v1/admin/") || slices.Contains(sharedRoutes, route) {
				continue
			}
			if check, ok := capabilityRoutes[route]; ok {
				calls += check(s, t, b, a)
				continue
			}
			if strings.HasPrefix(path, "/oauth/") && route != "POST /oauth/v2/token" {
				calls += s.checkForeignToken(t, route, b, a)
				continue
			}
			tenant := slices.ContainsFunc(tenantPrefixes, func(p string) bool { return strings.HasPrefix(path, p) })
			if url, ok := fillValueParams(path, params); ok {
				if tenant && method == http.MethodGet {
					s.checkListHidesOthers(t, route, url, b, a)
				}
				continue
			}
			if !tenant {
				t.Errorf("route %s names an object but is neither admin, shared catalog, nor under a tenant prefix %v: decide whether it is tenant-scoped and add it to the matrix", route, tenantPrefixes)
				continue
			}
			var names []string
			unknown := false
			for _, p := range params {
				if _, ok := isolationParams[p[1]]; !ok {
					t.Errorf("route %s: the isolation matrix does not know the path parameter {%s}; add it to isolationParams", route, p[1])
					unknown = true
				}
				names = append(names, p[1])
			}
			if unknown {
				continue
			}
			// Every assignment of owners to the parameters in which at least one object
			// is A's: B's webhook with A's delivery is as foreign as A's webhook.
			for mask := 1; mask < 1<<len(names); mask++ {
				url := path
				var desc []string
				for i, name := range names {
					owner := b
					if mask&(1<<i) != 0 {
						owner = a
					}
					url = strings.Replace(url, "{"+name+"}", isolationParams[name](owner), 1)
					desc = append(desc, name+"="+owner.name)
				}
				s.checkForeign(t, route+" ["+strings.Join(desc, ",")+"]", method, url, b)
				calls++
			}
		}
		if calls < 20 {
			t.Fatalf("only %d foreign calls made from %d routes: the route list looks wrong", calls, len(routes))
		}
		t.Logf("%d foreign calls over %d routes, each on both listeners", calls, len(routes))
		if after := s.tenantSnapshot(a); after != before {
			t.Errorf("another account's calls changed tenant A:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// adminAccountPrefix is the prefix of the admin routes of one account.
const adminAccountPrefix = "/api/v1/admin/accounts/{accountID}"

// checkAdminAccountRoute calls an admin read of one account as an employee: with
// every parameter b's, the answer is 200 and names nothing of a's; with the
// parameters owned by both (b's account with a's subscription, and the other way
// round) it is 404 NotFound. It returns the number of foreign calls made.
func (s *testServer) checkAdminAccountRoute(t *testing.T, route string, params [][]string, b, a *isoTenant) int {
	t.Helper()
	_, path, _ := strings.Cut(route, " ")
	var names []string
	for _, p := range params {
		if _, ok := isolationParams[p[1]]; !ok {
			t.Errorf("route %s: the isolation matrix does not know the path parameter {%s}; add it to isolationParams", route, p[1])
			return 0
		}
		names = append(names, p[1])
	}
	fill := func(mask int) (string, string) {
		url := path
		var desc []string
		for i, name := range names {
			owner := b
			if mask&(1<<i) != 0 {
				owner = a
			}
			url = strings.Replace(url, "{"+name+"}", isolationParams[name](owner), 1)
			desc = append(desc, name+"="+owner.name)
		}
		return url, route + " [" + strings.Join(desc, ",") + "]"
	}
	auth := map[string]string{"Authorization": "Bearer " + s.adminToken()}
	own, _ := fill(0)
	resp, body := s.do(s.client, http.MethodGet, s.base+own, nil, auth)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s for %s: %d %.300s", route, b.name, resp.StatusCode, body)
	}
	for name, id := range map[string]string{"booking": a.bookingID, "order": a.orderID, "iccid": a.iccid,
		"package": a.packageID, "webhook": a.webhookID, "delivery": a.deliveryID, "account": a.creds.AccountID} {
		if strings.Contains(string(body), id) {
			t.Errorf("%s for %s lists %s's %s %s", route, b.name, a.name, name, id)
		}
	}
	calls := 0
	for mask := 1; mask < 1<<len(names)-1; mask++ {
		url, desc := fill(mask)
		resp, got := s.do(s.client, http.MethodGet, s.base+url, nil, auth)
		if resp.StatusCode != http.StatusNotFound || problemOf(t, resp, got)["code"] != "NotFound" {
			t.Errorf("%s: %d, want 404 NotFound: %.300s", desc, resp.StatusCode, got)
		}
		calls++
	}
	return calls
}

// checkForeign sends the request as tenant b on both listeners. On the mTLS listener
// (client certificate presented) it must be 404 NotFound; on the plain listener,
// booking routes answer ClientCertificateRequired before looking at the id, which is
// allowed, and everything else must be 404 too.
func (s *testServer) checkForeign(t *testing.T, name, method, url string, b *isoTenant) {
	t.Helper()
	var body string
	switch method {
	case http.MethodPost:
		if f, ok := isolationBodies[url[strings.LastIndexByte(url, '/')+1:]]; ok {
			body = f(b)
		}
	case http.MethodPatch:
		body = isolationPatch
	}
	for _, l := range []struct {
		listener string
		client   *http.Client
		base     string
	}{{"mtls", s.mtlsClient, s.mtlsBase}, {"plain", s.client, s.base}} {
		h := map[string]string{"Authorization": "Bearer " + b.token, "Idempotency-Key": "iso-" + skygate.NewID()}
		var rd io.Reader
		if body != "" {
			h["Content-Type"] = "application/json"
			rd = strings.NewReader(body)
		}
		resp, got := s.do(l.client, method, l.base+url, rd, h)
		switch {
		case resp.StatusCode == http.StatusNotFound:
			if p := problemOf(t, resp, got); p["code"] != "NotFound" {
				t.Errorf("%s on %s: 404 with code %v", name, l.listener, p["code"])
			}
		case l.listener == "plain" && resp.StatusCode == http.StatusUnauthorized &&
			problemOf(t, resp, got)["code"] == "ClientCertificateRequired":
		default:
			t.Errorf("%s on %s: %d, want 404: %.300s", name, l.listener, resp.StatusCode, got)
		}
	}
}

// capabilityRoutes are the routes whose path names an object by a bearer capability
// instead of an id, each with its check that tenant b reaches nothing of tenant a's
// but through a's capability; it returns the calls made. The install page's token is
// the link a partner hands its traveller: whoever holds it sees the page, whatever
// credentials come with it, and nothing else opens a's page.
var capabilityRoutes = map[string]func(s *testServer, t *testing.T, b, a *isoTenant) int{
	"GET " + skygate.InstallPagePath + "{token}": func(s *testServer, t *testing.T, b, a *isoTenant) int {
		box, err := seal.New(s.config().MasterKey)
		if err != nil {
			t.Fatal(err)
		}
		// A token with the server's own key, for b's account, naming a's eSIM.
		minter := esim.New(esim.Config{InstallKey: box.DeriveKey(seal.PurposeESIMInstallLink)})
		forged := skygate.InstallPagePath + minter.InstallToken(b.creds.AccountID, a.iccid)
		for _, c := range []struct {
			name, path string
			want       int
			owner      *isoTenant
		}{
			{"b's account naming a's eSIM", forged, http.StatusNotFound, nil},
			{"b's own page", b.installPath, http.StatusOK, b},
			{"a's page by a's token (the capability)", a.installPath, http.StatusOK, a},
		} {
			for _, l := range []struct {
				listener string
				client   *http.Client
				base     string
			}{{"mtls", s.mtlsClient, s.mtlsBase}, {"plain", s.client, s.base}} {
				resp, got := s.do(l.client, http.MethodGet, l.base+c.path, nil, map[string]string{"Authorization": "Bearer " + b.token})
				if resp.StatusCode != c.want || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
					t.Errorf("install page, %s, on %s: %d %q, want %d", c.name, l.listener, resp.StatusCode, resp.Header.Get("Content-Type"), c.want)
				}
				if c.owner != nil && !strings.Contains(string(got), "MATCH-"+c.owner.iccid[10:]) {
					t.Errorf("install page, %s, on %s, does not show %s's eSIM", c.name, l.listener, c.owner.name)
				}
				for _, other := range []*isoTenant{a, b} {
					if other != c.owner && strings.Contains(string(got), other.iccid[10:]) {
						t.Errorf("install page, %s, on %s, shows %s's eSIM", c.name, l.listener, other.name)
					}
				}
			}
		}
		return 3
	},
}

// foreignTokenChecks are the OAuth routes that take a token in their body, each with
// what tenant b's client calling it with tenant a's token must get: nothing of a's
// token, and no change to it. A new /oauth/ route not listed here fails the matrix.
var foreignTokenChecks = map[string]func(s *testServer, t *testing.T, b, a *isoTenant){
	"POST /oauth/v2/introspect": func(s *testServer, t *testing.T, b, a *isoTenant) {
		wantInactive(t, "b introspecting a's token", s.introspect(b.creds, a.token))
	},
	"POST /oauth/v2/revoke": func(s *testServer, t *testing.T, b, a *isoTenant) {
		s.revoke(b.creds, a.token)
		if got := s.introspect(a.creds, a.token); got["active"] != true {
			t.Errorf("a's token after b revoked it: %v", got)
		}
	},
}

// checkForeignToken runs route's foreignTokenChecks and returns the calls made.
func (s *testServer) checkForeignToken(t *testing.T, route string, b, a *isoTenant) int {
	t.Helper()
	check, ok := foreignTokenChecks[route]
	if !ok {
		t.Errorf("route %s: the isolation matrix does not know this OAuth route; add it to foreignTokenChecks", route)
		return 0
	}
	check(s, t, b, a)
	return 1
}

// checkListHidesOthers calls a list route (or one with valueParams only) at path as
// viewer and fails when the answer names any object of other.
func (s *testServer) checkListHidesOthers(t *testing.T, route, path string, viewer, other *isoTenant) {
	t.Helper()
	resp, body := s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+path, nil, map[string]string{"Authorization": "Bearer " + viewer.token})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s as %s: %d %.300s", route, viewer.name, resp.StatusCode, body)
		return
	}
	for name, id := range map[string]string{"booking": other.bookingID, "order": other.orderID, "iccid": other.iccid,
		"package": other.packageID, "webhook": other.webhookID, "delivery": other.deliveryID, "event": other.eventID,
		"account": other.creds.AccountID} {
		if strings.Contains(string(body), id) {
			t.Errorf("%s as %s lists %s's %s %s", route, viewer.name, other.name, name, id)
		}
	}
}

// tenantSnapshot describes what another account could have changed: the booking's
// status, the eSIM's status, the subscription and the number of deliveries.
func (s *testServer) tenantSnapshot(a *isoTenant) string {
	s.t.Helper()
	_, bk := s.do(s.mtlsClient, http.MethodGet, s.mtlsBase+bookingPath+"/"+a.bookingID, nil, map[string]string{"Authorization": "Bearer " + a.token})
	_, es := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+a.iccid, a.token, "", nil)
	_, wh := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+a.webhookID, a.token, "", nil)
	_, dl := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+a.webhookID+"/deliveries?limit=1", a.token, "", nil)
	var v struct {
		Status     string `json:"status"`
		URL        string `json:"url"`
		Active     *bool  `json:"active"`
		UpdatedAt  string `json:"updated_at"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	var parts []string
	for _, body := range [][]byte{bk, es, wh, dl} {
		v.Status, v.URL, v.Active, v.UpdatedAt, v.Pagination.Total = "", "", nil, "", 0
		_ = json.Unmarshal(body, &v)
		parts = append(parts, fmt.Sprintf("%s|%s|%v|%s|%d", v.Status, v.URL, v.Active != nil && *v.Active, v.UpdatedAt, v.Pagination.Total))
	}
	return strings.Join(parts, " ")
}

// seedTenant creates a sandbox account with every B2B scope and one object of every
// kind: an Issued booking (mTLS), an eSIM package, an order with its eSIM, and a
// webhook subscription with at least one delivery.
func (s *testServer) seedTenant(name string) *isoTenant {
	t := s.t
	t.Helper()
	tn := &isoTenant{name: name, creds: s.mustBootstrap(name, skygate.B2BScopes, "--sandbox")}
	tn.token = s.mustToken(tn.creds, "")

	// The webhook first, so that the booking's events are delivered to it.
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		validateDelivery(t, body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	tn.hookURL = hook.URL
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tn.token, `{"url":"`+hook.URL+`/hook","secret":"isolation-secret-of-some-length"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("%s webhook: %d %s", name, resp.StatusCode, body)
	}
	tn.webhookID = mustJSON(t, body)["id"].(string)

	tn.bookingID = s.mustBook(tn.token, "iso-"+name, s.firstFastTrack(tn.token), "ISO-"+name).ID
	s.waitStatus(tn.token, tn.bookingID, "Issued")

	tn.packageID = skygate.NewID()
	acc := "/accounts/" + tn.creds.AccountID + "/esim"
	pkgs := `[{"id":"` + tn.packageID + `","name":{"en":"Isolation 1 GB","ru":"Изоляция 1 ГБ","uz":"Izolyatsiya 1 GB","kk":"Оқшаулау 1 ГБ"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":100,"currency":"USD"},"top_up":true,"active":true}]`
	if resp, body := s.adminCall(http.MethodPost, acc+"/packages", pkgs); resp.StatusCode != http.StatusOK {
		t.Fatalf("%s packages: %d %s", name, resp.StatusCode, body)
	}
	csv := "iccid,smdp_address,matching_id\n"
	for range 2 {
		icc := storetest.NewICCID()
		csv += icc + ",smdp.example.com,MATCH-" + icc[10:] + "\n"
	}
	resp, body = s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv),
		map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("%s pool: %d %s", name, resp.StatusCode, body)
	}
	if resp, body := s.adminCall(http.MethodPost, acc+"/credits", `{"amount":{"amount":1000,"currency":"USD"},"description":"isolation"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("%s credit: %d %s", name, resp.StatusCode, body)
	}
	resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tn.token, `{"package_id":"`+tn.packageID+`","quantity":1,"partner_reference":"ISO-`+name+`"}`, map[string]string{"Idempotency-Key": "iso-order-" + name})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("%s order: %d %s", name, resp.StatusCode, body)
	}
	var o struct {
		ID    string          `json:"id"`
		ESIMs []installedESIM `json:"esims"`
	}
	if err := json.Unmarshal(body, &o); err != nil || len(o.ESIMs) != 1 {
		t.Fatalf("%s order body %v: %s", name, err, body)
	}
	tn.orderID, tn.iccid = o.ID, o.ESIMs[0].ICCID
	tn.installPath = pagePath(t, o.ESIMs[0].Install.PageURL)

	deadline := time.Now().Add(20 * time.Second)
	for tn.deliveryID == "" {
		_, body := s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks/"+tn.webhookID+"/deliveries?limit=1", tn.token, "", nil)
		var page struct {
			Data []struct {
				ID      string `json:"id"`
				EventID string `json:"event_id"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &page) == nil && len(page.Data) > 0 {
			tn.deliveryID, tn.eventID = page.Data[0].ID, page.Data[0].EventID
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no webhook delivery: %s", name, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return tn
}
