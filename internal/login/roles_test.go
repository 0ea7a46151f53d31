package login

import (
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
)

func TestPolicyMap(t *testing.T) {
	t.Parallel()
	both := []string{skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications}
	roleMap := map[string]string{
		"grp-ops": RoleAdmin, "grp-audit": RoleAuditor,
		"grp-support": RoleAccountAdmin, "grp-partners": RoleApplicationAdmin,
	}
	tests := []struct {
		name    string
		env     string
		roleMap map[string]string
		groups  []string
		roles   []string
		scopes  []string
	}{
		{"development: everyone is admin", "development", nil, nil, []string{RoleAdmin}, both},
		{"development ignores the map", "development", roleMap, []string{"grp-audit"}, []string{RoleAdmin}, both},
		{"sandbox without a map: everyone is admin", "sandbox", nil, []string{"grp-dev"}, []string{RoleAdmin}, both},
		{"sandbox with a map: a developer has no role", "sandbox", roleMap, []string{"grp-dev"}, []string{}, []string{}},
		{"sandbox with a map: mapped groups give roles", "sandbox", roleMap, []string{"grp-audit"}, []string{RoleAuditor}, []string{skygate.ScopeAuditRead}},
		{"production admin", "production", roleMap, []string{"grp-ops"}, []string{RoleAdmin}, both},
		{"production developer has no role", "production", roleMap, []string{"grp-dev"}, []string{}, []string{}},
		{"production no groups", "production", roleMap, nil, []string{}, []string{}},
		{"production match is exact", "production", roleMap, []string{"GRP-OPS", "grp-ops ", "grp"}, []string{}, []string{}},
		{"production auditor reads the audit log", "production", roleMap, []string{"grp-audit"}, []string{RoleAuditor}, []string{skygate.ScopeAuditRead}},
		{"production account admin", "production", roleMap, []string{"grp-support"}, []string{RoleAccountAdmin}, []string{skygate.ScopeAdminAccounts}},
		{"production scopes are a union in a fixed order", "production", roleMap,
			[]string{"grp-partners", "grp-audit", "grp-support", "grp-partners"},
			[]string{RoleAccountAdmin, RoleApplicationAdmin, RoleAuditor}, append(both, skygate.ScopeAuditRead)},
		{"production two groups for one role", "production", map[string]string{"a": RoleAdmin, "b": RoleAdmin},
			[]string{"b", "a"}, []string{RoleAdmin}, both},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := NewPolicy(tt.env, tt.roleMap)
			if err != nil {
				t.Fatal(err)
			}
			roles, scopes := p.Map(tt.groups)
			if !slices.Equal(roles, tt.roles) || !slices.Equal(scopes, tt.scopes) || roles == nil || scopes == nil {
				t.Fatalf("Map(%q) = %#v, %#v; want %#v, %#v", tt.groups, roles, scopes, tt.roles, tt.scopes)
			}
			if want := tt.env == "production" || tt.env == "sandbox" && tt.roleMap != nil; p.Strict() != want {
				t.Errorf("Strict() = %v, want %v", p.Strict(), want)
			}
		})
	}
}

func TestNewPolicyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     string
		roleMap map[string]string
		want    string
	}{
		{"unknown role", "production", map[string]string{"grp-ops": "admin", "grp-x": "superuser"}, "grp-x=superuser"},
		{"unknown role outside production", "development", map[string]string{"g": "Admin"}, "g=Admin"},
		{"production without a map", "production", nil, "required in production"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewPolicy(tt.env, tt.roleMap)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestRoleScopesIsACopy(t *testing.T) {
	t.Parallel()
	s := RoleScopes(RoleAdmin)
	s[0] = "mutated"
	if RoleScopes(RoleAdmin)[0] != skygate.ScopeAdminAccounts {
		t.Fatal("RoleScopes returns the package's own slice")
	}
	if RoleScopes("nobody") != nil {
		t.Error("an unknown role has scopes")
	}
}
