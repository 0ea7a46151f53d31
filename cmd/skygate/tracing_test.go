package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/telemetry"
)

// otlpReceiver is an OTLP/HTTP trace collector in the test: it decodes every export
// request (protobuf) and keeps the spans with their resources, and the raw bodies.
type otlpReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	spans []receivedSpan
	raw   [][]byte
}

type receivedSpan struct {
	*tracepb.Span
	resource map[string]string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	rc := &otlpReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP receiver: %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil {
			t.Errorf("OTLP receiver: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.raw = append(rc.raw, b)
		for _, rs := range req.GetResourceSpans() {
			res := map[string]string{}
			for _, kv := range rs.GetResource().GetAttributes() {
				res[kv.GetKey()] = kv.GetValue().GetStringValue()
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					rc.spans = append(rc.spans, receivedSpan{Span: s, resource: res})
				}
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// received returns the spans and raw export bodies received so far.
func (rc *otlpReceiver) received() ([]receivedSpan, [][]byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]receivedSpan(nil), rc.spans...), append([][]byte(nil), rc.raw...)
}

// attrs returns a span's attributes as text.
func attrs(s receivedSpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.GetAttributes() {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			m[kv.GetKey()] = v.GetStringValue()
		default:
			m[kv.GetKey()] = strings.TrimSpace(strings.TrimPrefix(v.String(), "int_value:"))
		}
	}
	return m
}

// logLines decodes the JSON log lines of a server's stderr.
func logLines(t *testing.T, s *testServer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Bytes(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

var traceparentRE = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

// The trace a test request continues: W3C Trace Context's own example.
const (
	parentTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + parentTraceID + "-" + parentSpanID + "-01"
)

// TestTracingEndToEnd runs serve with an OTLP endpoint in its environment: a booking
// request with a traceparent becomes the child of that parent, named by its route,
// its client.address the TCP peer rather than a forged X-Forwarded-For, with the
// store's statements as its children and no passenger's data anywhere in the
// export; the request's access-log line carries its trace and span ids; the webhook
// delivery it causes carries the traceparent of a delivery span in a trace of its own.
// The spans reach the collector by the flush at shutdown.
func TestTracingEndToEnd(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		otlp := newOTLPReceiver(t)
		s := startServer(t, e.env(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.srv.URL}))
		c := s.mustBootstrap("tracer", append([]string{skygate.ScopeWebhooksWrite}, bookingScopes...))
		tok := s.mustToken(c, "")
		rc := newReceiver(t)
		if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"a-very-long-shared-secret-0001"}`, nil); resp.StatusCode != http.StatusCreated {
			t.Fatalf("create webhook: %d %s", resp.StatusCode, body)
		}
		resp, body := s.do(s.mtlsClient, http.MethodPost, s.mtlsBase+bookingPath, strings.NewReader(bookingBody(s.firstFastTrack(tok), "TR-1")),
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Idempotency-Key": "tr-1", "traceparent": traceparent,
				"X-Forwarded-For": "203.0.113.9"}) // from no trusted proxy: not the client's address
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("book: %d %s", resp.StatusCode, body)
		}
		if v := resp.Header.Get("traceparent"); v != "" {
			t.Errorf("the response carries traceparent %q", v)
		}
		requestID := resp.Header.Get("X-Request-ID")
		d := rc.waitFor(t, func(d delivery) bool { return d.event.Type == "booking.status.changed" })
		m := traceparentRE.FindStringSubmatch(d.header.Get("traceparent"))
		if m == nil {
			t.Fatalf("delivery traceparent %q", d.header.Get("traceparent"))
		}
		if !verifies(t, "a-very-long-shared-secret-0001", d) {
			t.Error("the delivery with a traceparent does not verify")
		}
		deliveryTrace, deliverySpan := m[1], m[2]
		s.stop() // flushes the spans

		spans, raw := otlp.received()
		var server *receivedSpan
		for i, sp := range spans {
			if hex.EncodeToString(sp.GetParentSpanId()) == parentSpanID {
				server = &spans[i]
			}
		}
		if server == nil {
			t.Fatalf("no span is the child of the request's traceparent among %d spans", len(spans))
		}
		serverSpanID := hex.EncodeToString(server.GetSpanId())
		a := attrs(*server)
		if server.GetName() != "POST "+bookingPath || server.GetKind() != tracepb.Span_SPAN_KIND_SERVER ||
			hex.EncodeToString(server.GetTraceId()) != parentTraceID || a["http.route"] != bookingPath || a["http.response.status_code"] != "202" ||
			a["client.address"] != "127.0.0.1" {
			t.Errorf("server span %q kind %v trace %x attributes %v", server.GetName(), server.GetKind(), server.GetTraceId(), a)
		}
		if server.resource["service.name"] != "skygate" || server.resource["service.version"] != version {
			t.Errorf("resource %v", server.resource)
		}
		system := map[string]string{"sqlite": "sqlite", "postgres": "postgresql"}[e.name]
		var statements []string
		deliveryFound := false
		for _, sp := range spans {
			if hex.EncodeToString(sp.GetParentSpanId()) == serverSpanID {
				if sp.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || attrs(sp)["db.system.name"] != system {
					t.Errorf("child span %q kind %v attributes %v", sp.GetName(), sp.GetKind(), attrs(sp))
				}
				statements = append(statements, sp.GetName())
			}
			if hex.EncodeToString(sp.GetSpanId()) == deliverySpan {
				deliveryFound = true
				if sp.GetName() != "webhook delivery" || hex.EncodeToString(sp.GetTraceId()) != deliveryTrace || len(sp.GetParentSpanId()) != 0 {
					t.Errorf("delivery span %q trace %x parent %x", sp.GetName(), sp.GetTraceId(), sp.GetParentSpanId())
				}
			}
		}
		if len(statements) == 0 {
			t.Error("no store span is the child of the server span")
		}
		if !deliveryFound || deliveryTrace == parentTraceID {
			t.Errorf("delivery span exported %v, trace %s (the request's is %s)", deliveryFound, deliveryTrace, parentTraceID)
		}
		for _, personal := range []string{"Karimova", "FA1234567", "aziza@example.com", "+998901234567", "1990-04-01"} {
			for _, b := range raw {
				if bytes.Contains(b, []byte(personal)) {
					t.Errorf("the exported spans carry %q", personal)
				}
			}
		}

		var access map[string]any
		for _, l := range logLines(t, s) {
			if l["msg"] == "request" && l["request_id"] == requestID {
				access = l
			}
			if id, ok := l["trace_id"]; ok && id == parentTraceID && l["span_id"] != serverSpanID {
				t.Errorf("a log line of the request names span %v, not the server span %s: %v", l["span_id"], serverSpanID, l)
			}
		}
		if access == nil || access["trace_id"] != parentTraceID || access["span_id"] != serverSpanID {
			t.Errorf("access-log line %v, want trace_id %s and span_id %s", access, parentTraceID, serverSpanID)
		}
		t.Logf("%s: %d spans; the booking's statements: %v", e.name, len(spans), statements)
	})
}

// TestTracingOff: with OTEL_SDK_DISABLED=true, an OTLP endpoint in the environment
// exports nothing, a request's traceparent reaches no log line, and webhook
// deliveries carry none; the store's statement durations are on /metrics.
func TestTracingOff(t *testing.T) {
	t.Parallel()
	otlp := newOTLPReceiver(t)
	s := startServer(t, testEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.srv.URL, "OTEL_SDK_DISABLED": "true"}))
	c := s.mustBootstrap("untraced", []string{skygate.ScopeWebhooksWrite})
	tok := s.mustToken(c, "")
	rc := newReceiver(t)
	resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks", tok, `{"url":"`+rc.srv.URL+`/hook","secret":"a-very-long-shared-secret-0001"}`,
		map[string]string{"traceparent": traceparent})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", resp.StatusCode, body)
	}
	id := mustJSON(t, body)["id"].(string)
	if resp, body := s.partnerCall(http.MethodPost, "/api/v1/b2b/webhooks/"+id+"/test", tok, "", nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test event: %d %s", resp.StatusCode, body)
	}
	d := rc.waitFor(t, func(d delivery) bool { return d.event.Type == "webhook.test" })
	if v, ok := d.header["Traceparent"]; ok {
		t.Errorf("delivery traceparent %q with tracing off", v)
	}
	// The store's statement durations are on /metrics all the same.
	_, metrics := s.do(s.opsClient, http.MethodGet, s.opsBase+"/metrics", nil, nil)
	for _, series := range []string{`db_client_operation_duration_seconds_count{db_collection_name="webhook_subscriptions",db_operation_name="INSERT",db_system_name="sqlite"}`,
		`db_client_operation_duration_seconds_bucket{db_collection_name="",db_operation_name="COMMIT",db_system_name="sqlite",le="0.001"}`} {
		if !strings.Contains(string(metrics), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	s.stop()
	if spans, raw := otlp.received(); len(spans) != 0 || len(raw) != 0 {
		t.Errorf("%d spans exported with tracing off", len(spans))
	}
	for _, l := range logLines(t, s) {
		if _, ok := l["trace_id"]; ok || l["msg"] == "tracing" {
			t.Errorf("log line %v with tracing off", l)
		}
	}
}

// TestHelpListsTracingVariables: the usage and serve's name the OpenTelemetry
// variables serve reads; other commands' do not.
func TestHelpListsTracingVariables(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--help"}, true},
		{[]string{"serve", "--help"}, true},
		{[]string{"migrate", "--help"}, false},
	} {
		var stdout strings.Builder
		if err := run(t.Context(), append([]string{"skygate"}, tc.args...), func(string) string { return "" }, &stdout, io.Discard); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, v := range telemetry.Variables {
			if got := strings.Contains(stdout.String(), v.Name); got != tc.want {
				t.Errorf("%v: names %s: %v, want %v", tc.args, v.Name, got, tc.want)
			}
		}
	}
}
