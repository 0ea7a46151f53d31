package telemetry

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		env                map[string]string
		endpoint, protocol string
	}{
		{"nothing set", nil, "", "http/protobuf"},
		{"base URL", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, "http://collector:4318/v1/traces", "http/protobuf"},
		{"base URL with a path", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example/prefix/"}, "https://otel.example/prefix/v1/traces", "http/protobuf"},
		{"traces URL as is", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4318/custom"}, "http://b:4318/custom", "http/protobuf"},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "http://collector:4317", "grpc"},
		{"traces protocol wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, "http://c:4317", "grpc"},
		{"SDK disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, "", "http/protobuf"},
		{"no exporter", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, "", "http/protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := readSettings(env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if s.endpoint != tc.endpoint || s.protocol != tc.protocol {
				t.Errorf("endpoint %q protocol %q, want %q %q", s.endpoint, s.protocol, tc.endpoint, tc.protocol)
			}
		})
	}
}

// TestReadSettingsReportsEveryProblem: each unusable variable is named, all at once.
func TestReadSettingsReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := readSettings(env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "collector:4318",
		"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/json",
		"OTEL_TRACES_SAMPLER":                "traceidratio",
		"OTEL_TRACES_SAMPLER_ARG":            "2",
		"OTEL_RESOURCE_ATTRIBUTES":           "deployment.environment=prod,broken",
		"OTEL_TRACES_EXPORTER":               "zipkin",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_SAMPLER_ARG",
		"OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_EXPORTER"} {
		if !strings.Contains(err.Error(), name+":") {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
	if _, err := readSettings(env(map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"})); err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_SAMPLER:") {
		t.Errorf("unknown sampler: %v", err)
	}
}

func TestSampler(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"":                         "ParentBased{root:AlwaysOnSampler,",
		"parentbased_always_on":    "ParentBased{root:AlwaysOnSampler,",
		"parentbased_always_off":   "ParentBased{root:AlwaysOffSampler,",
		"parentbased_traceidratio": "ParentBased{root:TraceIDRatioBased{0.25},",
		"always_on":                "AlwaysOnSampler",
		"always_off":               "AlwaysOffSampler",
		"traceidratio":             "TraceIDRatioBased{0.25}",
	} {
		s, err := sampler(name, "0.25")
		if err != nil || !strings.HasPrefix(s.Description(), want) {
			t.Errorf("sampler(%q) = %v, %v; want %s…", name, s, err, want)
		}
	}
}

// TestResource: service.name is skygate unless the environment names it, and
// OTEL_SERVICE_NAME wins over OTEL_RESOURCE_ATTRIBUTES.
func TestResource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env     map[string]string
		service string
	}{
		{nil, "skygate"},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=edge,deployment.environment.name=pr%C3%B6d"}, "edge"},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=edge", "OTEL_SERVICE_NAME": "gate"}, "gate"},
	} {
		s, err := readSettings(env(tc.env))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.resource(context.Background(), "v1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		set := res.Set()
		if v, _ := set.Value(semconv.ServiceNameKey); v.AsString() != tc.service {
			t.Errorf("%v: service.name %q, want %q", tc.env, v.AsString(), tc.service)
		}
		if v, _ := set.Value(semconv.ServiceVersionKey); v.AsString() != "v1.2.3" {
			t.Errorf("service.version %q", v.AsString())
		}
		if v, ok := set.Value(attribute.Key("deployment.environment.name")); ok && v.AsString() != "pröd" {
			t.Errorf("deployment.environment.name %q", v.AsString())
		}
	}
}

// TestVariablesAreWhatSetupReads keeps Variables, which `skygate --help` prints and
// README.md documents, and readSettings in step.
func TestVariablesAreWhatSetupReads(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	for _, e := range []map[string]string{nil, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}} {
		_, _ = readSettings(func(k string) string { read[k] = true; return e[k] })
	}
	var documented []string
	for _, v := range Variables {
		documented = append(documented, v.Name)
		if !read[v.Name] {
			t.Errorf("Variables documents %s, which Setup never reads", v.Name)
		}
	}
	for k := range read {
		if !slices.Contains(documented, k) {
			t.Errorf("Setup reads %s, which Variables does not document", k)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range documented {
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README.md does not document %s", name)
		}
	}
}

// TestSetupOff: without an endpoint nothing is started and the handler is h itself.
func TestSetupOff(t *testing.T) {
	t.Parallel()
	tr, err := Setup(context.Background(), env(nil), "dev")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled() || tr.TracerProvider() != nil {
		t.Error("tracing is on without an endpoint")
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	var nilTracing *Tracing
	if nilTracing.Enabled() || nilTracing.TracerProvider() != nil || nilTracing.Shutdown(context.Background()) != nil {
		t.Error("nil Tracing is not off")
	}
}
