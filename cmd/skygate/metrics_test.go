package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skygate/skygate"
)

// scrape returns the operator listener's /metrics.
func (s *testServer) scrape() string {
	s.t.Helper()
	resp, body := s.do(s.opsClient, http.MethodGet, s.opsBase+"/metrics", nil, nil)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	return string(body)
}

// TestMetricsPromtool runs requests of every kind (a token, a catalog read, the 429
// of the account's limit, a 404, a 405, a method HTTP does not define, a webhook test
// event whose receiver fails), then checks that /metrics has the operator's series
// and passes promtool check metrics, the linter operators run on exporters. Under
// CI=true a missing promtool fails the test (.ci/run installs it).
func TestMetricsPromtool(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil && os.Getenv("CI") == "" {
		t.Skipf("the check needs promtool: %v", err)
	} else if err != nil {
		t.Fatalf("the check needs promtool, which CI must install (.ci/run): %v", err)
	}
	s := startServer(t, testEnv(t, map[string]string{"SKYGATE_RATE_LIMIT": "0.5", "SKYGATE_RATE_BURST": "2"}))

	tok := s.mustToken(s.mustBootstrap("acme", catalogScopes), "")
	for i := 0; ; i++ {
		resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil)
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
		if resp.StatusCode != http.StatusOK || i == 10 {
			t.Fatalf("catalog request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	s.get("/no/such/path", "", nil)
	s.do(s.client, http.MethodDelete, s.base+"/oauth/v2/token", nil, nil)
	s.do(s.client, "BREW", s.base+"/healthz", nil, nil)

	// A delivery to a receiver that fails stays pending, retried later.
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		validateDelivery(t, body)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	hooks := s.mustToken(s.mustBootstrap("hooks", []string{skygate.ScopeWebhooksRead, skygate.ScopeWebhooksWrite}), "")
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", hooks, `{"url":"`+failing.URL+`","secret":"a-very-long-shared-secret-0001"}`, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+mustJSON(t, body)["id"].(string)+"/test", hooks, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", resp.StatusCode, body)
	}

	metrics := s.scrape()
	for _, series := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^skygate_build_info\{goversion="go[^"]+",revision="unknown",version="dev"\} 1$`),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{http_request_method="GET",http_response_status_code="200",http_route="/v2/catalog/lounges"\} [1-9]`),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_bucket\{http_request_method="GET",http_response_status_code="429",http_route="/v2/catalog/lounges",le="\+Inf"\} 1$`),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_sum\{http_request_method="POST",http_response_status_code="200",http_route="/oauth/v2/token"\} `),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{http_request_method="GET",http_response_status_code="404",http_route="unmatched"\} 1$`),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{http_request_method="DELETE",http_response_status_code="405",http_route="unmatched"\} 1$`),
		regexp.MustCompile(`(?m)^http_server_request_duration_seconds_count\{http_request_method="_OTHER",http_response_status_code="405",http_route="unmatched"\} 1$`),
		regexp.MustCompile(`(?m)^skygate_rate_limit_rejections_total\{limit="account"\} 1$`),
		regexp.MustCompile(`(?m)^skygate_rate_limit_rejections_total\{limit="token_source"\} 0$`),
		regexp.MustCompile(`(?m)^skygate_webhook_backlog 1$`),
		regexp.MustCompile(`(?m)^skygate_webhook_oldest_pending_age_seconds [0-9.e+-]+$`),
		regexp.MustCompile(`(?m)^skygate_webhook_attempts_total [0-9]+$`),
		regexp.MustCompile(`(?m)^go_sql_open_connections\{db_name="sqlite_read"\} `),
		regexp.MustCompile(`(?m)^process_cpu_seconds_total `),
	} {
		if !series.MatchString(metrics) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if strings.Contains(metrics, "skygate_http_") {
		t.Error("/metrics still has a skygate_http_ series")
	}

	check := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	check.Stdin = strings.NewReader(metrics)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// fakeBacklog is a store whose backlog is b, or err.
type fakeBacklog struct {
	b   skygate.WebhookBacklog
	err error
}

func (f fakeBacklog) WebhookBacklog(ctx context.Context, now time.Time) (skygate.WebhookBacklog, error) {
	return f.b, f.err
}

// TestBacklogCollector: the gauges are the store's backlog, the age counted from the
// oldest due time to the scrape's clock; a scrape that cannot read the backlog has
// neither series, and logs why.
func TestBacklogCollector(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		store       fakeBacklog
		want        map[string]float64
		wantLogLine string
	}{
		{"due", fakeBacklog{b: skygate.WebhookBacklog{Pending: 3, OldestDue: now.Add(-90 * time.Second)}},
			map[string]float64{"skygate_webhook_backlog": 3, "skygate_webhook_oldest_pending_age_seconds": 90}, ""},
		{"none due", fakeBacklog{b: skygate.WebhookBacklog{Pending: 2}},
			map[string]float64{"skygate_webhook_backlog": 2, "skygate_webhook_oldest_pending_age_seconds": 0}, ""},
		{"empty", fakeBacklog{},
			map[string]float64{"skygate_webhook_backlog": 0, "skygate_webhook_oldest_pending_age_seconds": 0}, ""},
		{"store down", fakeBacklog{err: errors.New("connection refused")},
			map[string]float64{}, "cannot read the webhook backlog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(newBacklogCollector(tc.store, func() time.Time { return now }, slog.New(slog.NewTextHandler(&log, nil))))
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, mf := range mfs {
				got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
			}
			if len(got) != len(tc.want) {
				t.Errorf("series %v, want %v", got, tc.want)
			}
			for name, v := range tc.want {
				if got[name] != v {
					t.Errorf("%s = %v, want %v", name, got[name], v)
				}
			}
			if !strings.Contains(log.String(), tc.wantLogLine) || tc.wantLogLine == "" && log.Len() > 0 {
				t.Errorf("log %q, want %q", log.String(), tc.wantLogLine)
			}
		})
	}
}
