package api_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skygate/skygate/api"
)

// partnerPaths are the paths a partner calls: the partner view has these and no other.
var partnerPaths = []string{
	"/.well-known/jwks.json",
	"/.well-known/oauth-authorization-server",
	"/.well-known/openid-configuration",
	"/api/v1/b2b/events",
	"/api/v1/b2b/events/{eventID}",
	"/api/v1/b2b/webhooks",
	"/api/v1/b2b/webhooks/{webhookID}",
	"/api/v1/b2b/webhooks/{webhookID}/change-url",
	"/api/v1/b2b/webhooks/{webhookID}/deliveries",
	"/api/v1/b2b/webhooks/{webhookID}/deliveries/{deliveryID}/retry",
	"/api/v1/b2b/webhooks/{webhookID}/enable",
	"/api/v1/b2b/webhooks/{webhookID}/recover",
	"/api/v1/b2b/webhooks/{webhookID}/rotate-secret",
	"/api/v1/b2b/webhooks/{webhookID}/test",
	"/esim/install/{token}", // the page partners hand to travellers
	"/oauth/v2/introspect",
	"/oauth/v2/revoke",
	"/oauth/v2/token",
	"/v2/b2b/billing",
	"/v2/b2b/billing/settings",
	"/v2/b2b/billing/statements/{month}",
	"/v2/b2b/booking/fast-tracks",
	"/v2/b2b/booking/fast-tracks/quotes",
	"/v2/b2b/booking/fast-tracks/{bookingID}",
	"/v2/b2b/booking/fast-tracks/{bookingID}/cancel",
	"/v2/b2b/booking/fast-tracks/{bookingID}/cancellation",
	"/v2/b2b/booking/fast-tracks/{bookingID}/confirm",
	"/v2/b2b/booking/fast-tracks/{bookingID}/pass",
	"/v2/b2b/esim/billing",
	"/v2/b2b/esim/orders",
	"/v2/b2b/esim/orders/{orderID}",
	"/v2/b2b/esim/settings",
	"/v2/b2b/esims",
	"/v2/b2b/esims/{iccid}",
	"/v2/b2b/esims/{iccid}/cancel",
	"/v2/b2b/esims/{iccid}/history",
	"/v2/b2b/esims/{iccid}/instructions",
	"/v2/b2b/esims/{iccid}/qr",
	"/v2/b2b/esims/{iccid}/topups",
	"/v2/catalog/esim/packages",
	"/v2/catalog/esim/packages/{packageID}",
	"/v2/catalog/fast-tracks",
	"/v2/catalog/fast-tracks/{id}",
	"/v2/catalog/fast-tracks/{id}/availability",
	"/v2/catalog/lounges",
	"/v2/catalog/lounges/{id}",
	"/v2/sandbox/booking/fast-tracks/{bookingID}/simulate",
	"/v2/sandbox/esims/{iccid}/activate",
	"/v2/sandbox/esims/{iccid}/install",
	"/v2/sandbox/esims/{iccid}/profile",
	"/v2/sandbox/esims/{iccid}/usage",
}

func TestPartnerView(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := api.PartnerJSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("partner view is not a valid document: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	var got []string
	for p := range doc.Paths.Map() {
		got = append(got, p)
	}
	slices.Sort(got)
	if !slices.Equal(got, partnerPaths) {
		t.Errorf("partner paths:\n got %q\nwant %q", got, partnerPaths)
	}
	whole, err := api.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p := range whole.Paths.Map() {
		partner := slices.Contains(partnerPaths, p)
		admin := strings.HasPrefix(p, "/api/v1/admin/") || strings.HasPrefix(p, "/api/v1/auth/") ||
			slices.Contains([]string{"/healthz", "/readyz", "/metrics", "/openapi.json", "/openapi.yaml", "/openapi/partner.json"}, p)
		if partner == admin {
			t.Errorf("%s: in the partner list %v, an admin, login or operations path %v: classify it here", p, partner, admin)
		}
	}
	if doc.Components.SecuritySchemes["employee"] != nil || doc.Components.SecuritySchemes["partner"] == nil {
		t.Errorf("security schemes %v", doc.Components.SecuritySchemes)
	}
	for _, name := range []string{"Account", "Application", "AuditEvent"} {
		if doc.Components.Schemas[name] != nil {
			t.Errorf("admin schema %s in the partner view", name)
		}
	}
	for _, tag := range doc.Tags {
		if tag.Name == "admin" || tag.Name == "operations" {
			t.Errorf("tag %s in the partner view", tag.Name)
		}
	}
	text := string(b)
	for _, bad := range []string{"SKYGATE_", "proxy", "Proxy", "x-audience", "x-partner-description", "x-partner-enum", "employee", "authorization_code", "code_verifier", "redirect_uri"} {
		if i := strings.Index(text, bad); i >= 0 {
			t.Errorf("partner view contains %q: …%s…", bad, text[max(0, i-80):min(len(text), i+80)])
		}
	}
	// The whole document keeps what the partner view leaves out.
	all, err := api.JSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(all, &m); err != nil || !strings.Contains(string(all), "SKYGATE_TRUSTED_PROXIES") {
		t.Errorf("the whole document lost its operator text (%v)", err)
	}
}
