package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guidePath is the Getting started guide's source, which /docs renders.
const guidePath = "../../web/content/getting-started.md"

// guideStep is one runnable block of the guide: ```sh title="name".
type guideStep struct{ name, code string }

var guideBlock = regexp.MustCompile("(?ms)^```sh title=\"([^\"]+)\"\n(.*?)^```$")

// guideSteps extracts the runnable blocks of the guide, in order.
func guideSteps(tb testing.TB) []guideStep {
	tb.Helper()
	src, err := os.ReadFile(guidePath)
	if err != nil {
		tb.Fatal(err)
	}
	var steps []guideStep
	for _, m := range guideBlock.FindAllStringSubmatch(string(src), -1) {
		steps = append(steps, guideStep{m[1], m[2]})
	}
	return steps
}

// guideWants is what each step of the guide prints; every runnable block has an entry.
var guideWants = map[string]*regexp.Regexp{
	"setup":             regexp.MustCompile(`(?s)ca\.pem.*client-key\.pem.*client\.pem`),
	"token":             regexp.MustCompile(`^token: eyJ`),
	"catalog":           regexp.MustCompile(`(?s)"id":"68ad2f8e-7d06-5e7a-abc6-b5d15a14cf73","name":"Fast Track — Departures, Terminal 2".*"required_booking_info":\["Name","FlightNumber"\]`),
	"receiver":          regexp.MustCompile(`^$`),
	"subscribe":         regexp.MustCompile(`^subscription [0-9a-f-]{36}$`),
	"verify":            regexp.MustCompile(`^$`),
	"webhook-test":      regexp.MustCompile(`(?s)"event_type":"webhook.test".*signature ok: webhook.test [0-9a-f-]{36}`),
	"availability":      regexp.MustCompile(`^\{"time_zone":"Asia/Tashkent","slot":\{"start":"09:00","end":"10:00","capacity":80,"remaining":80,"price":\{"amount":\d+,"currency":"USD"\}\}\}$`),
	"quote":             regexp.MustCompile(`^\{"price":\{"amount":\d+,"currency":"USD"\},"refund_until":\[\{"until":"[^"]+","refund_percent":100\},\{"until":"[^"]+","refund_percent":50\}\]\}$`),
	"book":              regexp.MustCompile(`^booking [0-9a-f-]{36}$`),
	"issued":            regexp.MustCompile(`(?s)signature ok: booking.status.changed .*"status":"Issued".*"status_history":\["Pending","Issued"\]`),
	"confirm":           regexp.MustCompile(`^\{"status":"Confirmed"\}$`),
	"refund-quote":      regexp.MustCompile(`^\{"refund":\{"amount":\d+,"currency":"USD"\},"fee":\{"amount":0,"currency":"USD"\}\}$`),
	"pass":              regexp.MustCompile(`(?s)^\{"status":"Active","code":"[2-9A-Z]{10}".*\}\nimage/png$`),
	"low-balance":       regexp.MustCompile(`^\{"low_balance_thresholds":\[\{"amount":\d+,"currency":"USD"\}\]\}$`),
	"esim-order":        regexp.MustCompile(`^\{"status":"Completed","total":\{"amount":350,"currency":"USD"\},"esim":\{"iccid":"\d{19,20}","status":"Assigned"\}\}$`),
	"esim-qr":           regexp.MustCompile(`^image/png$`),
	"esim-settings":     regexp.MustCompile(`^\{"usage_thresholds":\[50,80,100\]\}$`),
	"esim-usage":        regexp.MustCompile(`(?s)^\{"status":"Installed","profile_state":"Installed"\}\n\{"status":"Active"\}\n.*"used_mb":820.*signature ok: esim.usage.threshold`),
	"esim-expiring":     regexp.MustCompile(`^\{"status":"Installed","profile_state":"Enabled"\}\n\{"status":"Active"\}\nsignature ok: esim.expiring [0-9a-f-]{36}\n\{"days_left":1\}$`),
	"esim-install":      regexp.MustCompile(`^200 text/html; charset=utf-8$`),
	"billing":           regexp.MustCompile(`"ledger":\[\{"kind":"charge","amount":\{"amount":-350,"currency":"USD"\},"booking_id":null\},\{"kind":"charge","amount":\{"amount":-\d+,"currency":"USD"\},"booking_id":"[0-9a-f-]{36}"\},\{"kind":"release",.*\{"kind":"reservation",.*\{"kind":"credit"`),
	"billing-statement": regexp.MustCompile(`(?s)signature ok: billing.balance.low .*id,created_at,kind,amount,currency,balance_after,booking_id,reference,description`),
	"cleanup":           regexp.MustCompile(`^$`),
}

// TestGettingStartedGuide runs the guide's snippets, extracted from its Markdown, in
// order in one bash against a real development server with the demo client it prints,
// and checks what each step prints: the guide cannot rot. It then checks the webhook
// deliveries the guide's receiver got against the event catalog's schemas.
func TestGettingStartedGuide(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "openssl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil && os.Getenv("CI") == "" {
			t.Skipf("the guide needs %s: %v", tool, err)
		} else if err != nil {
			t.Fatalf("the guide needs %s, which CI must install (.ci/run): %v", tool, err)
		}
	}
	steps := guideSteps(t)
	if len(steps) < 10 {
		t.Fatalf("only %d runnable blocks in %s", len(steps), guidePath)
	}
	s := startServer(t, testEnv(t, nil))
	demo := demoClient(t, s.stdout.String())

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, st := range steps {
		if guideWants[st.name] == nil {
			t.Errorf("step %q has no expected output in guideWants", st.name)
		}
		script.WriteString("printf '\\n@@step %s\\n' '" + st.name + "'\n" + st.code)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.sh"), []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "guide.sh")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C.UTF-8",
		"CLIENT_ID=" + demo.ClientID, "CLIENT_SECRET=" + demo.ClientSecret,
		"SKYGATE_URL=" + s.base, "SKYGATE_MTLS_URL=" + s.mtlsBase,
		"PKI=" + filepath.Join(s.env["SKYGATE_DATA_DIR"], "pki"),
		"RECEIVER_PORT=" + strconv.Itoa(freeTCPPort(t)),
	}
	// The receiver runs in the background: end the whole group, whatever happens.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	outputs := map[string]string{}
	var last string
	for _, part := range strings.Split(string(out), "\n@@step ")[1:] {
		name, text, _ := strings.Cut(part, "\n")
		outputs[name], last = strings.TrimSpace(text), name
	}
	if err != nil {
		t.Fatalf("the guide failed at step %q: %v\n%s", last, err, out)
	}
	for _, st := range steps {
		got, ok := outputs[st.name]
		if !ok {
			t.Errorf("step %q printed no marker", st.name)
			continue
		}
		if want := guideWants[st.name]; want != nil && !want.MatchString(got) {
			t.Errorf("step %q printed\n%s\nwant it to match %s", st.name, got, want)
		}
	}
	checkDeliveries(t, filepath.Join(dir, "webhooks"))
}

// freeTCPPort returns a loopback port that was free a moment ago.
func freeTCPPort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
