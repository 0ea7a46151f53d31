package config

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Variable documents one environment variable Load reads.
type Variable struct {
	Name    string
	Default string
	Meaning string
}

// Variables lists every variable Load reads, in the order `skygate --help` prints
// them. A test keeps the list and Load in step.
var Variables = []Variable{
	{"SKYGATE_ENV", "development", "development, sandbox or production"},
	{"SKYGATE_HTTP_ADDR", "127.0.0.1:8080", "plain listener (everything but booking)"},
	{"SKYGATE_MTLS_ADDR", "127.0.0.1:8443", "TLS listener requesting client certificates (booking)"},
	{"SKYGATE_OPS_ADDR", "127.0.0.1:9090", "operator listener: /metrics, /healthz, /readyz"},
	{"SKYGATE_SHUTDOWN_DELAY", "5s", "time serve goes on serving after SIGTERM, /readyz answering 503, before its listeners close"},
	{"SKYGATE_SHUTDOWN_TIMEOUT", "30s", "then, bound of the wait for requests in flight and the background work's current round"},
	{"SKYGATE_DATA_DIR", "./data", "SQLite file, development PKI (pki/), generated master key"},
	{"SKYGATE_DATABASE_URL", "sqlite://$SKYGATE_DATA_DIR/skygate.db", "sqlite://PATH or postgres://…"},
	{"SKYGATE_DATABASE_MAX_CONNS", "max(4, CPUs)", "PostgreSQL connections of one replica's pool"},
	{"SKYGATE_PUBLIC_URL", "http://$SKYGATE_HTTP_ADDR", "token issuer and audience, base of links; required in production (https)"},
	{"SKYGATE_MASTER_KEY", "generated in development", "32 bytes (64 hex digits or base64) sealing secrets at rest"},
	{"SKYGATE_MIGRATE", "true", "migrate on start; false refuses a database that lacks migrations"},
	{"SKYGATE_TOKEN_TTL", "1h", "B2B access-token lifetime"},
	{"SKYGATE_KEY_PREPUBLISH", "10m", "delay between publishing a rotated signing key and signing with it"},
	{"SKYGATE_CONFIRM_WINDOW", "30m", "time an Issued booking waits for confirmation"},
	{"SKYGATE_PASSENGER_DATA_RETENTION", "2160h", "time after a booking's service date until its passengers' personal data is removed (at least 72h)"},
	{"SKYGATE_EVENT_RETENTION", "720h", "time the events API serves an event (24h to 8760h); purged an hour later"},
	{"SKYGATE_WEBHOOK_GRACE", "24h", "time an old webhook secret still signs after rotation"},
	{"SKYGATE_WEBHOOK_TIMEOUT", "10s", "bound of one webhook delivery attempt"},
	{"SKYGATE_WEBHOOK_LEASE", "30s", "time a claimed webhook delivery stays reserved for its replica"},
	{"SKYGATE_WEBHOOK_ALLOW_PRIVATE", "true in development", "allow webhook URLs on private addresses; refused in production"},
	{"SKYGATE_CATALOG_REFRESH", "5s", "how often a server picks up a catalog stored by another process"},
	{"SKYGATE_OIDC_ISSUER", "", "employees' OpenID Connect provider"},
	{"SKYGATE_OIDC_CLIENT_ID", "", "Skygate's client id at SKYGATE_OIDC_ISSUER"},
	{"SKYGATE_OIDC_CLIENT_SECRET", "", "Skygate's client secret at SKYGATE_OIDC_ISSUER"},
	{"SKYGATE_DEV_IDP", "true in development", "serve the built-in development identity provider; refused in production"},
	{"SKYGATE_DEV_PKI", "true in development", "generate the development PKI under SKYGATE_DATA_DIR/pki; refused in production"},
	{"SKYGATE_ADMIN_REDIRECT_URIS", "$SKYGATE_PUBLIC_URL/admin/callback", "exact-match list of employee login redirect_uris"},
	{"SKYGATE_ROLE_MAP", "", "group=role list, such as grp-ops=admin,grp-audit=auditor; required in production"},
	{"SKYGATE_TLS_CERT", "", "mTLS listener's certificate file (PEM)"},
	{"SKYGATE_TLS_KEY", "", "mTLS listener's key file (PEM)"},
	{"SKYGATE_CLIENT_CA", "", "CA file that client certificates must chain to (PEM)"},
	{"SKYGATE_CLIENT_CA_KEY", "", "SKYGATE_CLIENT_CA's key file, when the service signs partners' CSRs"},
	{"SKYGATE_CLIENT_CERT_TTL", "8760h", "lifetime of a client certificate the service issues"},
	{"SKYGATE_TRUSTED_PROXY_CERT_HEADER", "", "header carrying the client certificate from a trusted proxy"},
	{"SKYGATE_TRUSTED_PROXIES", "", "CIDRs of reverse proxies whose X-Forwarded-For and certificate header count"},
	{"SKYGATE_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"SKYGATE_RATE_LIMIT", "100", "requests per second per account on authenticated routes; 0 disables"},
	{"SKYGATE_RATE_BURST", "200", "burst of SKYGATE_RATE_LIMIT"},
	{"SKYGATE_TOKEN_RATE_LIMIT", "10", "token requests per second per client; 0 disables"},
	{"SKYGATE_TOKEN_RATE_BURST", "20", "burst of SKYGATE_TOKEN_RATE_LIMIT"},
	{"SKYGATE_TOKEN_SOURCE_RATE_LIMIT", "10", "token requests per second per source address that authenticate no client; 0 disables"},
	{"SKYGATE_TOKEN_SOURCE_RATE_BURST", "20", "burst of SKYGATE_TOKEN_SOURCE_RATE_LIMIT"},
	{"SKYGATE_REDIS_URL", "", "share rate limits between replicas through Redis"},
	{"SKYGATE_CPU_PROFILE", "", "file serve writes a CPU profile of its run to"},
}

// PrintVariables writes vars (Variables, or another package's table of the same
// shape) as an aligned table.
func PrintVariables(w io.Writer, vars []Variable) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range vars {
		def := v.Default
		if def == "" {
			def = "-"
		}
		_, _ = fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.Name, def, v.Meaning) // Flush reports a failed write
	}
	return tw.Flush()
}
