package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/skygate/skygate/internal/config"
)

// Variables are the OpenTelemetry variables Setup reads, as the OpenTelemetry
// specification defines them; `skygate --help` prints them and README.md documents
// them.
var Variables = []config.Variable{
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Default: "", Meaning: "OTLP collector base URL; set, it turns tracing on (http/protobuf appends /v1/traces)"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", Default: "", Meaning: "OTLP URL of spans, used as is; turns tracing on and wins over the base URL"},
	{Name: "OTEL_EXPORTER_OTLP_PROTOCOL", Default: "http/protobuf", Meaning: "http/protobuf or grpc"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", Default: "", Meaning: "protocol of spans; wins over OTEL_EXPORTER_OTLP_PROTOCOL"},
	{Name: "OTEL_SERVICE_NAME", Default: "skygate", Meaning: "service.name of the spans"},
	{Name: "OTEL_RESOURCE_ATTRIBUTES", Default: "", Meaning: "more resource attributes: key=value,… (values percent-encoded)"},
	{Name: "OTEL_TRACES_SAMPLER", Default: "parentbased_always_on", Meaning: "always_on, always_off, traceidratio or their parentbased_ forms"},
	{Name: "OTEL_TRACES_SAMPLER_ARG", Default: "1.0", Meaning: "sampling ratio of the traceidratio samplers, 0 to 1"},
	{Name: "OTEL_TRACES_EXPORTER", Default: "otlp", Meaning: "otlp, or none to turn tracing off"},
	{Name: "OTEL_SDK_DISABLED", Default: "false", Meaning: "true turns tracing off"},
}

// settings are the tracing settings of the environment.
type settings struct {
	// endpoint is the exporter's URL; empty turns tracing off.
	endpoint string
	protocol string
	sampler  sdktrace.Sampler
	service  string
	attrs    []attribute.KeyValue
}

// readSettings reads Variables through getenv and reports every unusable one.
func readSettings(getenv func(string) string) (settings, error) {
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	}
	s := settings{protocol: "http/protobuf"}
	if v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); strings.EqualFold(v, "true") {
		return s, nil
	}
	switch v := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); v {
	case "", "otlp":
	case "none":
		return s, nil
	default:
		bad("OTEL_TRACES_EXPORTER", "%q is not supported: otlp or none", v)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			if v != "http/protobuf" && v != "grpc" {
				bad(name, "%q is not supported: http/protobuf or grpc", v)
			}
			s.protocol = v
			break
		}
	}
	signal, base := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")), strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	switch {
	case signal != "":
		if err := checkEndpoint(signal); err != nil {
			bad("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "%v", err)
		}
		s.endpoint = signal
	case base != "":
		if err := checkEndpoint(base); err != nil {
			bad("OTEL_EXPORTER_OTLP_ENDPOINT", "%v", err)
		}
		s.endpoint = base
		if s.protocol == "http/protobuf" {
			// The specification's rule: the signal's path is appended to the base URL's.
			u, _ := url.Parse(base)
			u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
			u.RawPath = ""
			s.endpoint = u.String()
		}
	}
	var err error
	if s.sampler, err = sampler(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")), strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))); err != nil {
		errs = append(errs, err)
	}
	if s.attrs, err = resourceAttributes(getenv("OTEL_RESOURCE_ATTRIBUTES")); err != nil {
		errs = append(errs, err)
	}
	s.service = strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if err := errors.Join(errs...); err != nil {
		return settings{}, err
	}
	return s, nil
}

// checkEndpoint accepts an absolute http or https URL with a host.
func checkEndpoint(v string) error {
	u, err := url.Parse(v)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL with a host", v)
	}
	return nil
}

// sampler returns the sampler that OTEL_TRACES_SAMPLER names (name) with
// OTEL_TRACES_SAMPLER_ARG (arg); empty is parentbased_always_on.
func sampler(name, arg string) (sdktrace.Sampler, error) {
	ratio := 1.0
	if arg != "" && strings.HasSuffix(name, "traceidratio") {
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: %q is not a ratio from 0 to 1", arg)
		}
		ratio = r
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER: %q is not supported: always_on, always_off, traceidratio or their parentbased_ forms", name)
}

// resourceAttributes parses OTEL_RESOURCE_ATTRIBUTES: key=value pairs separated by
// commas, keys and values percent-encoded.
func resourceAttributes(v string) ([]attribute.KeyValue, error) {
	var attrs []attribute.KeyValue
	for pair := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k, kerr := url.PathUnescape(strings.TrimSpace(k))
		val, verr := url.PathUnescape(strings.TrimSpace(val))
		if !ok || k == "" || kerr != nil || verr != nil {
			return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %q is not a key=value pair", strings.TrimSpace(pair))
		}
		attrs = append(attrs, attribute.String(k, val))
	}
	return attrs, nil
}

// resource is the resource of the spans: the SDK's own attributes, those of
// OTEL_RESOURCE_ATTRIBUTES, service.version, and service.name, which OTEL_SERVICE_NAME
// sets before OTEL_RESOURCE_ATTRIBUTES does, and "skygate" when neither does.
func (s settings) resource(ctx context.Context, version string) (*resource.Resource, error) {
	// Of attributes with the same key, the last one counts.
	attrs := []attribute.KeyValue{semconv.ServiceName("skygate"), semconv.ServiceVersion(version)}
	attrs = append(attrs, s.attrs...)
	if s.service != "" {
		attrs = append(attrs, semconv.ServiceName(s.service))
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(attrs...))
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	return res, nil
}
