package skygate_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestIsICCID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"89014103211118510720", true}, // a 20-digit ICCID printed on real cards
		{"8999901000000000013", true},  // 19 digits
		{"89014103211118510721", false},
		{"89014103211118510702", false}, // swapped digits
		{"8901410321111851073", false},  // 19 digits, wrong check digit
		{"890141032111185107", false},   // too short
		{"890141032111185107200", false},
		{"8901410321111851072O", false},
		{" 8901410321111851072", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := skygate.IsICCID(tt.in); got != tt.want {
			t.Errorf("IsICCID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if d := skygate.LuhnCheckDigit("7992739871"); d != '3' { // the textbook example
		t.Errorf("LuhnCheckDigit = %c, want 3", d)
	}
	if d := skygate.LuhnCheckDigit("12a"); d != 0 {
		t.Errorf("LuhnCheckDigit of a non-digit = %d, want 0", d)
	}
}

func FuzzIsICCID(f *testing.F) {
	f.Add("89014103211118510720")
	f.Add("8999901000000000013")
	f.Fuzz(func(t *testing.T, s string) {
		if !skygate.IsICCID(s) {
			return
		}
		// Every valid ICCID becomes invalid when its check digit changes.
		last := s[len(s)-1]
		for d := byte('0'); d <= '9'; d++ {
			if d != last && skygate.IsICCID(s[:len(s)-1]+string(d)) {
				t.Fatalf("%q and its variant with check digit %c are both valid", s, d)
			}
		}
	})
}

func TestProfileFields(t *testing.T) {
	t.Parallel()
	smdp := map[string]bool{
		"smdp.example.com": true, "rsp-1.gsma.example.org": true, "SMDP.IO": true,
		"localhost": false, "https://smdp.example.com": false, "smdp.example.com:443": false,
		"-a.example": false, "a..example": false, "": false, "a$b.example": false,
	}
	for in, want := range smdp {
		if got := skygate.IsSMDPAddress(in); got != want {
			t.Errorf("IsSMDPAddress(%q) = %v, want %v", in, got, want)
		}
	}
	matching := map[string]bool{"JQ-1UB8A4-1M5CNXN": true, "abc": true, "": false, "A$B": false, "A B": false}
	for in, want := range matching {
		if got := skygate.IsMatchingID(in); got != want {
			t.Errorf("IsMatchingID(%q) = %v, want %v", in, got, want)
		}
	}
	currency := map[string]bool{"USD": true, "UZS": true, "usd": false, "US": false, "USDT": false}
	for in, want := range currency {
		if got := skygate.IsCurrency(in); got != want {
			t.Errorf("IsCurrency(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestCanTransition checks every pair of statuses against the machine in esimstate.go.
func TestCanTransition(t *testing.T) {
	t.Parallel()
	allowed := map[[2]skygate.ESIMStatus]bool{
		{skygate.ESIMAssigned, skygate.ESIMInstalled}: true,
		{skygate.ESIMAssigned, skygate.ESIMCanceled}:  true,
		{skygate.ESIMInstalled, skygate.ESIMActive}:   true,
		{skygate.ESIMActive, skygate.ESIMDepleted}:    true,
		{skygate.ESIMActive, skygate.ESIMExpired}:     true,
		{skygate.ESIMDepleted, skygate.ESIMExpired}:   true,
		{skygate.ESIMDepleted, skygate.ESIMActive}:    true,
		{skygate.ESIMExpired, skygate.ESIMActive}:     true,
	}
	for _, from := range skygate.ESIMStatuses {
		for _, to := range skygate.ESIMStatuses {
			if got := skygate.CanTransition(from, to); got != allowed[[2]skygate.ESIMStatus{from, to}] {
				t.Errorf("CanTransition(%s, %s) = %v", from, to, got)
			}
		}
	}
}

func newESIM(total *int) *skygate.ESIM {
	return &skygate.ESIM{ICCID: "8999901000000000013", AccountID: "acc", OrderID: "order",
		Status: skygate.ESIMAssigned, Usage: skygate.NewESIMUsage(total, 0), ValidityDays: 7}
}

func ptr(n int) *int { return &n }

func TestESIMLife(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	e := newESIM(ptr(1000))
	if err := e.Activate(t0); !skygate.IsCode(err, skygate.CodeConflict) {
		t.Fatalf("Activate of an Assigned eSIM: %v", err)
	}
	if err := e.Install(t0); err != nil {
		t.Fatal(err)
	}
	if err := e.Activate(t0); err != nil || !e.ExpiresAt.Equal(t0.AddDate(0, 0, 7)) {
		t.Fatalf("Activate: %v, expires %v", err, e.ExpiresAt)
	}
	steps := []struct {
		used     int
		notified []int
		status   skygate.ESIMStatus
	}{
		{799, nil, skygate.ESIMActive},
		{800, []int{80}, skygate.ESIMActive},
		{999, []int{80}, skygate.ESIMActive},
		{1200, []int{80, 100}, skygate.ESIMDepleted},
	}
	for _, st := range steps {
		before := e.Clone()
		if err := e.ReportUsage(st.used, skygate.DefaultUsageThresholds); err != nil {
			t.Fatalf("ReportUsage(%d): %v", st.used, err)
		}
		if !slices.Equal(e.NotifiedThresholds, st.notified) || e.Status != st.status {
			t.Fatalf("after %d: %v %s", st.used, e.NotifiedThresholds, e.Status)
		}
		events, err := skygate.ESIMEvents(before, e, t0)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(st.notified) - len(before.NotifiedThresholds) + boolInt(before.Status != e.Status); len(events) != want {
			t.Fatalf("after %d: %d events, want %d", st.used, len(events), want)
		}
	}
	if e.Usage.UsedMB != 1000 || *e.Usage.RemainingMB != 0 {
		t.Fatalf("usage = %+v, want capped at 1000", e.Usage)
	}

	// A top-up after expiry renews validity from now and forgets passed thresholds.
	later := t0.AddDate(0, 0, 10)
	if err := e.Expire(later); err != nil || e.Status != skygate.ESIMExpired {
		t.Fatalf("Expire: %v, %s", err, e.Status)
	}
	topUp := &skygate.ESIMPackage{DataMB: ptr(4000), ValidityDays: 3, TopUp: true, Active: true}
	if err := e.ApplyTopUp(topUp, later); err != nil {
		t.Fatal(err)
	}
	if e.Status != skygate.ESIMActive || *e.Usage.TotalMB != 5000 || e.ValidityDays != 10 ||
		!e.ExpiresAt.Equal(later.AddDate(0, 0, 3)) || len(e.NotifiedThresholds) != 0 {
		t.Fatalf("after top-up: %+v", e)
	}
	if err := e.ApplyTopUp(&skygate.ESIMPackage{DataMB: ptr(1), ValidityDays: 1, Active: true}, later); !skygate.IsCode(err, skygate.CodeValidation) {
		t.Fatalf("a package that is not a top-up: %v", err)
	}
	if err := e.ReportUsage(10, skygate.DefaultUsageThresholds); !skygate.IsCode(err, skygate.CodeValidation) {
		t.Fatalf("decreasing usage: %v", err)
	}
}

func TestUnlimitedESIM(t *testing.T) {
	t.Parallel()
	e := newESIM(nil)
	_ = e.Install(time.Time{})
	_ = e.Activate(time.Time{})
	if err := e.ReportUsage(1<<30, skygate.DefaultUsageThresholds); err != nil || e.Status != skygate.ESIMActive || len(e.NotifiedThresholds) != 0 {
		t.Fatalf("unlimited eSIM after heavy use: %v %+v", err, e)
	}
	b, _ := json.Marshal(e.Usage)
	if string(b) != `{"total_mb":null,"used_mb":1073741824,"remaining_mb":null}` {
		t.Fatalf("usage JSON = %s", b)
	}
	// An unlimited top-up makes a limited eSIM unlimited.
	f := newESIM(ptr(100))
	if err := f.ApplyTopUp(&skygate.ESIMPackage{ValidityDays: 1, TopUp: true, Active: true}, time.Time{}); err != nil || f.Usage.TotalMB != nil {
		t.Fatalf("after an unlimited top-up: %v %+v", err, f.Usage)
	}
}

func TestESIMJSONHidesSecrets(t *testing.T) {
	t.Parallel()
	e := newESIM(ptr(1))
	e.MatchingIDSealed = []byte("sealed")
	b, _ := json.Marshal(e)
	for _, hidden := range []string{"sealed", "account_id", "notified"} {
		if strings.Contains(string(b), hidden) {
			t.Errorf("eSIM JSON %s shows %q", b, hidden)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestESIMPackageValidate(t *testing.T) {
	t.Parallel()
	good := &skygate.ESIMPackage{
		Name:      skygate.LocalizedText{EN: "a", RU: "б", UZ: "c", KK: "д"},
		Countries: []string{"UZ"}, ValidityDays: 1, Price: skygate.Money{Amount: 0, Currency: "USD"},
	}
	if errs := good.Validate("[0]"); errs != nil {
		t.Fatalf("Validate of a good package: %v", errs)
	}
	item := good.In(skygate.LangRU)
	if item.Name != "б" || item.DataMB != nil {
		t.Fatalf("In(ru) = %+v", item)
	}
}

func ExampleActivationCode() {
	fmt.Println(skygate.ActivationCode("smdp.example.com", "JQ-1UB8A4-1M5CNXN"))
	// Output: LPA:1$smdp.example.com$JQ-1UB8A4-1M5CNXN
}

func ExampleIsICCID() {
	payload := "899990100000000001"
	iccid := payload + string(skygate.LuhnCheckDigit(payload))
	fmt.Println(iccid, skygate.IsICCID(iccid), skygate.IsICCID(payload+"9"))
	// Output: 8999901000000000013 true false
}
