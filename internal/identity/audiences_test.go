package identity_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/sqlite/sqlitetest"
	"github.com/skygate/skygate/internal/storetest"
)

// TestApplicationAudiences: audiences are absolute URIs without a fragment, at most
// identity.MaxAudiences of at most identity.MaxAudienceLen bytes; each bad one is
// named by its index, and repeats are dropped in first-seen order.
func TestApplicationAudiences(t *testing.T) {
	t.Parallel()
	b := setup(t, sqlitetest.MustOpen(t))
	ctx := t.Context()
	acc, err := b.svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "acme"})
	storetest.MustNoError(t, err, "CreateAccount")
	many := make([]string, identity.MaxAudiences+1)
	for i := range many {
		many[i] = fmt.Sprintf("https://api%d.example.com", i)
	}
	long := "https://example.com/" + strings.Repeat("a", identity.MaxAudienceLen)
	for _, tc := range []struct {
		name      string
		audiences []string
		fields    []string
		stored    []string
	}{
		{"none", nil, nil, []string{}},
		{"https and urn", []string{"https://billing.example.com/api", "urn:example:ledger"}, nil, []string{"https://billing.example.com/api", "urn:example:ledger"}},
		{"repeats", []string{"https://a.example", "https://b.example", "https://a.example"}, nil, []string{"https://a.example", "https://b.example"}},
		{"at the bound", many[:identity.MaxAudiences], nil, many[:identity.MaxAudiences]},
		{"too many", many, []string{"audiences"}, nil},
		{"relative", []string{"https://ok.example", "/api"}, []string{"audiences[1]"}, nil},
		{"empty", []string{""}, []string{"audiences[0]"}, nil},
		{"fragment", []string{"https://a.example/#x"}, []string{"audiences[0]"}, nil},
		{"https without host", []string{"https:/path"}, []string{"audiences[0]"}, nil},
		{"space", []string{"https://a.example/a b"}, []string{"audiences[0]"}, nil},
		{"control character", []string{"https://a.example/\x00"}, []string{"audiences[0]"}, nil},
		{"non-ASCII", []string{"https://ü.example"}, []string{"audiences[0]"}, nil},
		{"too long", []string{long}, []string{"audiences[0]"}, nil},
		{"several bad", []string{"x", "https://ok.example", "y#z"}, []string{"audiences[0]", "audiences[2]"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, err := b.svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "app", AllowedScopes: scopes, Audiences: tc.audiences})
			wantFields(t, "CreateApplication", err, tc.fields)
			if err != nil {
				return
			}
			got, err := b.store.Application(ctx, acc.ID, app.ID)
			storetest.MustNoError(t, err, "Application")
			if !slices.Equal(got.Audiences, tc.stored) || got.Audiences == nil {
				t.Errorf("stored audiences %#v, want %#v", got.Audiences, tc.stored)
			}
		})
	}
}
