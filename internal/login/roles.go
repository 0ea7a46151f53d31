package login

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skygate/skygate"
)

// Logical roles an employee may hold. SKYGATE_ROLE_MAP maps identity provider groups
// to these names; any other name is a configuration error.
const (
	// RoleAdmin may do everything: identity.account:* and identity.application:*.
	RoleAdmin = "admin"
	// RoleAccountAdmin manages accounts, their eSIM pools, packages, credits and
	// bookings: identity.account:*.
	RoleAccountAdmin = "account-admin"
	// RoleApplicationAdmin manages B2B applications and their secrets:
	// identity.application:*.
	RoleApplicationAdmin = "application-admin"
	// RoleAuditor reads the audit log: identity.audit:read. Both admin scopes allow
	// writes, so it has neither, and every other admin route answers it 403.
	RoleAuditor = "auditor"
)

// roleScopes lists the scopes of each role, in the order roles are reported.
var roleScopes = []struct {
	role   string
	scopes []string
}{
	{RoleAdmin, []string{skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications}},
	{RoleAccountAdmin, []string{skygate.ScopeAdminAccounts}},
	{RoleApplicationAdmin, []string{skygate.ScopeAdminApplications}},
	{RoleAuditor, []string{skygate.ScopeAuditRead}},
}

// adminScopes is the order in which granted scopes are listed.
var adminScopes = []string{skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications, skygate.ScopeAuditRead}

// Roles returns the known role names.
func Roles() []string {
	out := make([]string, len(roleScopes))
	for i, rs := range roleScopes {
		out[i] = rs.role
	}
	return out
}

// RoleScopes returns the scopes a role grants, or nil for a role without scopes or
// an unknown one.
func RoleScopes(role string) []string {
	for _, rs := range roleScopes {
		if rs.role == role {
			return slices.Clone(rs.scopes)
		}
	}
	return nil
}

// Policy turns an employee's groups into roles and scopes (SPEC.md §5.2 item 5).
// Where it is strict, only groups named in the role map give roles; an employee none
// of whose groups is mapped (a developer, say) has no role, and the token endpoint
// denies them. It is strict in production, and in a sandbox whose operator set a role
// map: a sandbox is partner-facing, and its operator may not want every employee of
// the identity provider to administer its partners. Elsewhere (development, a
// sandbox without a map) every employee is an admin whatever the groups.
type Policy struct {
	strict bool
	groups map[string]string // group → role
}

// NewPolicy returns the policy of env (SKYGATE_ENV) with roleMap (SKYGATE_ROLE_MAP,
// group → role). In production the map is required; in a sandbox it applies when set;
// development does not use it. Every role in it must be one of Roles in every
// environment, so that a configuration fails before it reaches production.
func NewPolicy(env string, roleMap map[string]string) (Policy, error) {
	p := Policy{groups: map[string]string{}}
	var bad []string
	for g, r := range roleMap {
		if !slices.Contains(Roles(), r) {
			bad = append(bad, fmt.Sprintf("%s=%s", g, r))
			continue
		}
		p.groups[g] = r
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return Policy{}, fmt.Errorf("login: SKYGATE_ROLE_MAP names unknown roles (%s); known roles are %s",
			strings.Join(bad, ", "), strings.Join(Roles(), ", "))
	}
	switch {
	case env == "production" && len(p.groups) == 0:
		return Policy{}, fmt.Errorf("login: SKYGATE_ROLE_MAP is required in production")
	case env == "production", env == "sandbox" && len(p.groups) > 0:
		p.strict = true
	}
	return p, nil
}

// Strict reports whether the group mapping applies.
func (p Policy) Strict() bool { return p.strict }

// Map returns the roles of an employee with groups, in the order of Roles, and the
// union of their scopes, in a fixed order. Both are empty, not nil, for an employee
// with no role. Group names match exactly, case included.
func (p Policy) Map(groups []string) (roles, scopes []string) {
	if !p.strict {
		return []string{RoleAdmin}, RoleScopes(RoleAdmin)
	}
	roles, scopes = []string{}, []string{}
	for _, rs := range roleScopes {
		if slices.ContainsFunc(groups, func(g string) bool { return p.groups[g] == rs.role }) {
			roles = append(roles, rs.role)
			scopes = append(scopes, rs.scopes...)
		}
	}
	return roles, slices.DeleteFunc(slices.Clone(adminScopes), func(s string) bool { return !slices.Contains(scopes, s) })
}
