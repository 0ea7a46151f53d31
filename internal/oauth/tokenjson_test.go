package oauth_test

import (
	"encoding/json"
	"testing"
)

// TestTokenEndpointJSONMembers pins what a JSON body may hold: string members, a
// scope array of strings, nulls and empty values (dropped), and nothing else.
func TestTokenEndpointJSONMembers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	allScopes := "catalog.lounges:read catalog.fasttrack:read booking.fasttrack:read"
	for _, tt := range []struct {
		name, body string
		wantStatus int
		wantScope  string
	}{
		{"null member dropped", `{"grant_type":"client_credentials","scope":null}`, 200, allScopes},
		{"empty scope array dropped", `{"grant_type":"client_credentials","scope":[]}`, 200, allScopes},
		{"invalid UTF-8 in an unused member", "{\"grant_type\":\"client_credentials\",\"x\":\"\xff\"}", 200, allScopes},
		{"scope array", `{"grant_type":"client_credentials","scope":["catalog.lounges:read",` + "\n" + `"esim:read"]}`, 200, "catalog.lounges:read"},
		{"scope array with a number", `{"grant_type":"client_credentials","scope":["catalog.lounges:read",1]}`, 400, ""},
		{"scope array with null", `{"grant_type":"client_credentials","scope":["catalog.lounges:read",null]}`, 400, ""},
		{"array other than scope", `{"grant_type":["client_credentials"]}`, 400, ""},
		{"boolean member", `{"grant_type":"client_credentials","x":true}`, 400, ""},
		{"repeated member, escaped", `{"grant_type":"client_credentials","grant\u005ftype":"client_credentials"}`, 400, ""},
		{"null body", `null`, 400, ""},
		{"string body", `"grant_type"`, 400, ""},
		{"empty body", ``, 400, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := f.post(t, tokenCall{contentType: jsonType, body: tt.body, basic: []string{id, secret}})
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantStatus != 200 {
				checkErrorBody(t, w.Body.Bytes(), "invalid_request")
				return
			}
			var resp struct{ Scope string }
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Scope != tt.wantScope {
				t.Fatalf("scope %q (%v), want %q", resp.Scope, err, tt.wantScope)
			}
		})
	}
}
