package main

import (
	"crypto/elliptic"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/storetest"
)

// TestAdminWritesAreAudited makes every kind of admin write once, each with its own
// X-Request-ID, plus writes that fail; the audit log must hold exactly one record per
// successful write (action, target, account, actor, request id) and none for a failure.
// The only other records are those of the start's demo account (actor system) and of
// the bootstrap of the partner whose booking is completed (actor bootstrap).
func TestAdminWritesAreAudited(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		admin := s.adminToken()
		call := func(reqID, method, path, contentType, body string) (int, map[string]any) {
			t.Helper()
			h := map[string]string{"Authorization": "Bearer " + admin, "X-Request-ID": reqID}
			if contentType != "" {
				h["Content-Type"] = contentType
			}
			resp, b := s.do(s.client, method, s.base+"/api/v1/admin"+path, strings.NewReader(body), h)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			return resp.StatusCode, m
		}
		const js = "application/json"

		// Writes that fail record nothing.
		if st, _ := call("fail-name", http.MethodPost, "/accounts", js, `{"name":""}`); st != 422 {
			t.Fatalf("invalid account: %d", st)
		}
		st, acc := call("acc-create", http.MethodPost, "/accounts", js, `{"name":"Audited Travel"}`)
		if st != 201 {
			t.Fatalf("create account: %d %v", st, acc)
		}
		accID := acc["id"].(string)
		if st, _ := call("fail-dup", http.MethodPost, "/accounts", js, `{"name":"Audited Travel"}`); st != 409 {
			t.Fatalf("duplicate account: %d", st)
		}
		if st, _ := call("fail-credit", http.MethodPost, "/accounts/"+accID+"/esim/credits", js, `{"amount":{"amount":-5,"currency":"USD"}}`); st != 422 {
			t.Fatalf("invalid credit: %d", st)
		}
		if st, _ := call("fail-app", http.MethodDelete, "/applications/"+skygate.NewID(), "", ""); st != 404 {
			t.Fatalf("delete unknown application: %d", st)
		}

		st, app := call("app-create", http.MethodPost, "/accounts/"+accID+"/applications", js,
			`{"name":"Engine","allowed_scopes":["catalog.fasttrack:read","booking.fasttrack:write","booking.fasttrack:read"],"sandbox":true}`)
		if st != 201 {
			t.Fatalf("create application: %d %v", st, app)
		}
		appID := app["id"].(string)
		if st, _ := call("app-rotate", http.MethodPost, "/applications/"+appID+"/rotate-secret", "", ""); st != 200 {
			t.Fatalf("rotate: %d", st)
		}
		if st, _ := call("app-revoke", http.MethodPost, "/applications/"+appID+"/rotate-secret", js, `{"revoke_tokens":true}`); st != 200 {
			t.Fatalf("rotate revoking tokens: %d", st)
		}
		csr, _ := json.Marshal(map[string]string{"csr": newCSR(t, newECDSA(t, elliptic.P256()))})
		if st, m := call("app-cert-issue", http.MethodPost, "/applications/"+appID+"/certificates", js, string(csr)); st != 201 {
			t.Fatalf("issue a certificate: %d %v", st, m)
		}
		if st, _ := call("fail-cert", http.MethodPost, "/applications/"+appID+"/certificates", js, `{"csr":"not PEM"}`); st != 422 {
			t.Fatalf("a CSR that is not PEM: %d", st)
		}
		ca, caKey, _ := s.devCA()
		key := newECDSA(t, elliptic.P256())
		cert, _ := json.Marshal(map[string]string{"certificate": signClientCert(t, ca, caKey, &key.PublicKey, nil)})
		if st, m := call("app-cert-bind", http.MethodPost, "/applications/"+appID+"/certificates", js, string(cert)); st != 201 {
			t.Fatalf("bind a certificate: %d %v", st, m)
		}
		pkg := skygate.NewID()
		pkgs := `[{"id":"` + pkg + `","name":{"en":"A","ru":"А","uz":"A","kk":"А"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":100,"currency":"USD"},"top_up":true,"active":true}]`
		if st, m := call("esim-packages", http.MethodPost, "/accounts/"+accID+"/esim/packages", js, pkgs); st != 200 {
			t.Fatalf("packages: %d %v", st, m)
		}
		icc := storetest.NewICCID()
		if st, m := call("esim-pool", http.MethodPost, "/accounts/"+accID+"/esim/pool", "text/csv", "iccid,smdp_address,matching_id\n"+icc+",smdp.example.com,M-1\n"); st != 201 {
			t.Fatalf("pool: %d %v", st, m)
		}
		if st, _ := call("fail-pool", http.MethodPost, "/accounts/"+accID+"/esim/pool", "text/csv", "iccid,smdp_address,matching_id\n"+icc+",smdp.example.com,M-1\n"); st != 422 {
			t.Fatalf("duplicate pool upload: %d", st)
		}
		if st, m := call("esim-credit", http.MethodPost, "/accounts/"+accID+"/esim/credits", js, `{"amount":{"amount":500,"currency":"USD"},"description":"funds"}`); st != 201 {
			t.Fatalf("credit: %d %v", st, m)
		}

		// A confirmed booking of the account, then completed by the employee.
		c := s.mustBootstrap("audited-partner", bookingScopes, "--sandbox")
		tok := s.mustToken(c, "")
		b := s.mustBook(tok, "audit-1", s.firstFastTrack(tok), "AUDIT")
		s.waitStatus(tok, b.ID, "Issued")
		if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+b.ID+"/confirm", tok); resp.StatusCode != 200 {
			t.Fatalf("confirm: %d %s", resp.StatusCode, body)
		}
		if st, _ := call("fail-complete", http.MethodPost, "/bookings/"+skygate.NewID()+"/complete", "", ""); st != 404 {
			t.Fatalf("complete unknown booking: %d", st)
		}
		if st, m := call("booking-complete", http.MethodPost, "/bookings/"+b.ID+"/complete", "", ""); st != 200 {
			t.Fatalf("complete: %d %v", st, m)
		}
		if st, _ := call("fail-complete-twice", http.MethodPost, "/bookings/"+b.ID+"/complete", "", ""); st != 409 {
			t.Fatalf("complete twice: %d", st)
		}
		if st, _ := call("acc-suspend", http.MethodPatch, "/accounts/"+accID, js, `{"status":"suspended"}`); st != 200 {
			t.Fatalf("suspend: %d", st)
		}
		if st, _ := call("app-delete", http.MethodDelete, "/applications/"+appID, "", ""); st != 204 {
			t.Fatalf("delete application: %d", st)
		}

		want := map[string]string{ // request id → "action target account"
			"acc-create":       "account.create " + accID + " " + accID,
			"app-create":       "application.create " + appID + " " + accID,
			"app-rotate":       "application.rotate_secret " + appID + " " + accID,
			"app-revoke":       "application.rotate_secret " + appID + " " + accID,
			"app-cert-issue":   "application.certificate.issue " + appID + " " + accID,
			"app-cert-bind":    "application.certificate.bind " + appID + " " + accID,
			"esim-packages":    "esim.packages.set " + accID + " " + accID,
			"esim-pool":        "esim.pool.import " + accID + " " + accID,
			"esim-credit":      "esim.credit " + accID + " " + accID,
			"booking-complete": "booking.complete " + b.ID + " " + c.AccountID,
			"acc-suspend":      "account.update " + accID + " " + accID,
			"app-delete":       "application.delete " + appID + " " + accID,
		}
		st, page := call("list", http.MethodGet, "/audit-events?limit=500", "", "")
		if st != 200 {
			t.Fatalf("audit list: %d", st)
		}
		got := map[string][]string{}
		others := map[string][]string{} // actor → "action account" of writes no employee made
		for _, it := range page["data"].([]any) {
			ev := it.(map[string]any)
			if a := ev["actor"]; a == skygate.ActorBootstrap || a == skygate.ActorSystem {
				others[a.(string)] = append(others[a.(string)], fmt.Sprintf("%v %v", ev["action"], ev["account_id"]))
				continue
			}
			if ev["actor"] != "employee-1" {
				t.Errorf("record without the employee as actor: %v", ev)
			}
			got[fmt.Sprint(ev["request_id"])] = append(got[fmt.Sprint(ev["request_id"])],
				fmt.Sprintf("%v %v %v", ev["action"], ev["target_id"], ev["account_id"]))
		}
		for id, w := range want {
			if len(got[id]) != 1 || got[id][0] != w {
				t.Errorf("request %s: audit %q, want [%s]", id, got[id], w)
			}
		}
		for id, recs := range got {
			if _, ok := want[id]; !ok {
				t.Errorf("request %s left audit records %q", id, recs)
			}
		}
		demo := demoClient(t, s.stdout.String())
		for actor, want := range map[string][]string{
			skygate.ActorBootstrap: {"account.create " + c.AccountID, "application.create " + c.AccountID},
			skygate.ActorSystem: {"account.create " + demo.AccountID, "application.create " + demo.AccountID,
				"esim.credit " + demo.AccountID, "esim.packages.set " + demo.AccountID, "esim.pool.import " + demo.AccountID,
				"fast_track.prices.set " + demo.AccountID},
		} {
			if slices.Sort(others[actor]); !slices.Equal(others[actor], want) {
				t.Errorf("records of %s: %q, want %q", actor, others[actor], want)
			}
		}
		// The details say what the write did: whether a rotation revoked the tokens, which
		// certificate was bound.
		for _, it := range page["data"].([]any) {
			ev := it.(map[string]any)
			details, _ := ev["details"].(map[string]any)
			switch ev["request_id"] {
			case "app-rotate", "app-revoke":
				if want := ev["request_id"] == "app-revoke"; details["revoke_tokens"] != want {
					t.Errorf("%s: details %v, want revoke_tokens %v", ev["request_id"], details, want)
				}
			case "app-cert-issue", "app-cert-bind":
				if details["sha256"] == nil || details["serial"] == nil || details["not_after"] == nil {
					t.Errorf("%s: details %v, want serial, sha256 and not_after", ev["request_id"], details)
				}
			}
		}
		// Each record came with its write, not from the fallback that appends it later.
		if strings.Contains(s.stderr.String(), "without its audit record") {
			t.Error("an admin write committed without taking its audit record")
		}

		// An auditor reads the log and nothing else.
		db := s.openStore()
		auditor := s.mintToken(s.keyManager(db, time.Now), time.Now, testPublicURL, oauth.Claims{
			Subject: "auditor-1", ClientID: "skygate-admin-console", Scopes: []string{skygate.ScopeAuditRead}, Roles: []string{"auditor"},
		})
		for _, tc := range []struct {
			method, path string
			status       int
		}{
			{http.MethodGet, "/audit-events?limit=1", 200},
			{http.MethodGet, "/accounts", 403},
			{http.MethodGet, "/accounts/" + accID + "/applications", 403},
			{http.MethodPost, "/accounts", 403},
		} {
			resp, body := s.do(s.client, tc.method, s.base+"/api/v1/admin"+tc.path, strings.NewReader(`{"name":"x"}`),
				map[string]string{"Authorization": "Bearer " + auditor, "Content-Type": "application/json"})
			if resp.StatusCode != tc.status {
				t.Errorf("auditor %s %s: %d %.200s", tc.method, tc.path, resp.StatusCode, body)
			}
		}
	})
}
