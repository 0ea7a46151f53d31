package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// secretFields are the JSON fields that give a profile away: none is ever sent for a
// Canceled eSIM.
var secretFields = []string{"matching_id", "activation_code", "install"}

// TestCanceledESIMEndToEnd: once canceled and refunded, an eSIM never gives out its
// activation code: not in the cancel's answer nor any later owner read (GET one, list,
// order read, order list, replays of its order and top-up), its QR code and instructions
// are 409 InvalidESIMStatus and its install page shows the state only; every change
// of it (top-up, sandbox install, activate, usage, profile) is 409 InvalidESIMStatus.
// Its sibling in the same order keeps its code. The validating client checks every
// answer against the OpenAPI document.
func TestCanceledESIMEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, nil))
		c := s.mustBootstrap("canceled-co", esimScopes, "--sandbox")
		tok := s.mustToken(c, "")
		pkg := s.seedESIMCatalog(c.AccountID, 3)
		orderBody := `{"package_id":"` + pkg + `","quantity":2}`
		resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, orderBody, map[string]string{"Idempotency-Key": "canceled-order"})
		var o struct {
			ID    string          `json:"id"`
			ESIMs []installedESIM `json:"esims"`
		}
		if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &o) != nil || len(o.ESIMs) != 2 {
			t.Fatalf("order: %d %s", resp.StatusCode, body)
		}
		gone, kept := o.ESIMs[0], o.ESIMs[1]
		path := pagePath(t, gone.Install.PageURL)
		topUp := `{"package_id":"` + pkg + `"}`
		if resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+gone.ICCID+"/topups", tok, topUp, map[string]string{"Idempotency-Key": "canceled-topup"}); resp.StatusCode != http.StatusCreated {
			t.Fatalf("top-up: %d %s", resp.StatusCode, body)
		}
		resp, body = s.partnerCall(http.MethodPost, "/v2/b2b/esims/"+gone.ICCID+"/cancel", tok, "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("cancel: %d %s", resp.StatusCode, body)
		}

		// wantHidden checks every eSIM object (one with smdp_address) in body: the
		// Canceled one without secrets, the sibling with them.
		wantHidden := func(where string, body []byte) {
			t.Helper()
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatalf("%s: %v %s", where, err, body)
			}
			seen := 0
			var walk func(v any)
			walk = func(v any) {
				switch x := v.(type) {
				case []any:
					for _, y := range x {
						walk(y)
					}
				case map[string]any:
					if _, isESIM := x["smdp_address"]; !isESIM {
						for _, y := range x {
							walk(y)
						}
						return
					}
					switch x["iccid"] {
					case gone.ICCID:
						seen++
						if x["status"] != "Canceled" {
							t.Errorf("%s: status %v", where, x["status"])
						}
						for _, f := range secretFields {
							if _, ok := x[f]; ok {
								t.Errorf("%s: the Canceled eSIM carries %s: %s", where, f, body)
							}
						}
					case kept.ICCID:
						seen++
						for _, f := range secretFields {
							if _, ok := x[f]; !ok {
								t.Errorf("%s: the sibling lacks %s", where, f)
							}
						}
					}
					for _, y := range x {
						walk(y)
					}
				}
			}
			walk(v)
			if seen == 0 {
				t.Errorf("%s: no eSIM of the order in %s", where, body)
			}
		}
		wantHidden("cancel", body)
		for _, r := range []struct{ name, method, path, body, key string }{
			{"cancel again", http.MethodPost, "/v2/b2b/esims/" + gone.ICCID + "/cancel", "", ""},
			{"GET eSIM", http.MethodGet, "/v2/b2b/esims/" + gone.ICCID, "", ""},
			{"list eSIMs", http.MethodGet, "/v2/b2b/esims", "", ""},
			{"list Canceled eSIMs", http.MethodGet, "/v2/b2b/esims?status=Canceled", "", ""},
			{"GET order", http.MethodGet, "/v2/b2b/esim/orders/" + o.ID, "", ""},
			{"list orders", http.MethodGet, "/v2/b2b/esim/orders", "", ""},
			{"order replay", http.MethodPost, "/v2/b2b/esim/orders", orderBody, "canceled-order"},
			{"top-up replay", http.MethodPost, "/v2/b2b/esims/" + gone.ICCID + "/topups", topUp, "canceled-topup"},
		} {
			var h map[string]string
			if r.key != "" {
				h = map[string]string{"Idempotency-Key": r.key}
			}
			resp, body := s.partnerCall(r.method, r.path, tok, r.body, h)
			if resp.StatusCode/100 != 2 {
				t.Errorf("%s: %d %s", r.name, resp.StatusCode, body)
				continue
			}
			wantHidden(r.name, body)
		}

		// No QR code, no instructions, no change.
		for _, r := range []struct{ name, method, path, body, key string }{
			{"QR code", http.MethodGet, "/v2/b2b/esims/" + gone.ICCID + "/qr", "", ""},
			{"instructions", http.MethodGet, "/v2/b2b/esims/" + gone.ICCID + "/instructions", "", ""},
			{"top-up", http.MethodPost, "/v2/b2b/esims/" + gone.ICCID + "/topups", topUp, "canceled-late"},
			{"sandbox install", http.MethodPost, "/v2/sandbox/esims/" + gone.ICCID + "/install", "", ""},
			{"sandbox activate", http.MethodPost, "/v2/sandbox/esims/" + gone.ICCID + "/activate", "", ""},
			{"sandbox usage", http.MethodPost, "/v2/sandbox/esims/" + gone.ICCID + "/usage", `{"used_mb":1}`, ""},
			{"sandbox profile", http.MethodPost, "/v2/sandbox/esims/" + gone.ICCID + "/profile", `{"state":"Downloaded"}`, ""},
		} {
			var h map[string]string
			if r.key != "" {
				h = map[string]string{"Idempotency-Key": r.key}
			}
			resp, body := s.partnerCall(r.method, r.path, tok, r.body, h)
			if p := problemOf(t, resp, body); resp.StatusCode != http.StatusConflict || p["code"] != "InvalidESIMStatus" {
				t.Errorf("%s of a Canceled eSIM: %d %v", r.name, resp.StatusCode, p)
			}
			if strings.Contains(string(body), gone.MatchingID) {
				t.Errorf("%s: the problem names the matching ID: %s", r.name, body)
			}
		}
		if resp, body := s.partnerCall(http.MethodGet, "/v2/b2b/esims/"+kept.ICCID+"/qr", tok, "", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("QR code of the sibling: %d %s", resp.StatusCode, body)
		}

		// The install page shows the state, never the code or the QR code.
		resp, page := s.page(http.MethodGet, path, map[string]string{"Accept-Language": "en", "User-Agent": iPhoneUA})
		wantPageHeaders(t, "canceled", resp, http.StatusOK, "en")
		for _, leak := range []string{gone.MatchingID, "LPA:", "esimsetup.apple.com", `id="qr"`, `id="ios"`, `id="android"`, "data:image", `id="matching-id"`} {
			if strings.Contains(page, leak) {
				t.Errorf("the page of a Canceled eSIM shows %q:\n%s", leak, page)
			}
		}
		if !strings.Contains(page, "This eSIM was canceled and can no longer be installed.") || !strings.Contains(page, `data-status="Canceled"`) {
			t.Errorf("the page of a Canceled eSIM:\n%s", page)
		}
	})
}
