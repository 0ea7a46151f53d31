package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestLogHandler(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&b, nil)))
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	})
	traced := trace.ContextWithSpanContext(context.Background(), sc)
	log.InfoContext(traced, "in a request", "a", 1)
	log.With("component", "x").WithGroup("g").InfoContext(traced, "grouped")
	log.InfoContext(context.Background(), "outside")
	log.Info("no context")

	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	if lines[0]["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || lines[0]["span_id"] != "00f067aa0ba902b7" || lines[0]["a"] != 1.0 {
		t.Errorf("traced line %v", lines[0])
	}
	if g, _ := lines[1]["g"].(map[string]any); g["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || lines[1]["component"] != "x" {
		t.Errorf("derived logger's line %v", lines[1])
	}
	for _, l := range lines[2:] {
		if _, ok := l["trace_id"]; ok {
			t.Errorf("untraced line %v has a trace_id", l)
		}
	}
}
