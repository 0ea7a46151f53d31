package esim_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// instructionsESIM is an eSIM whose matching ID is revealed, as NewInstructions wants.
var instructionsESIM = &skygate.ESIM{ICCID: "8999901000000000013", SMDPAddress: "smdp.example.com",
	MatchingID: "MATCH-42", ActivationCode: skygate.ActivationCode("smdp.example.com", "MATCH-42")}

func TestNewInstructions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		apn      *skygate.APN
		want     esim.APNSettings
		apnStep  []string // texts of the last step on both platforms; nil: no APN step
		notInAny []string
	}{
		{name: "Automatic", want: esim.APNSettings{Automatic: true}, notInAny: []string{"APN"}},
		{name: "NameOnly", apn: &skygate.APN{Name: "internet.example"},
			want:    esim.APNSettings{Name: new("internet.example")},
			apnStep: []string{"internet.example"}, notInAny: []string{"{username}", "{password}"}},
		{name: "WithCredentials", apn: &skygate.APN{Name: "travel.example", Username: "user1", Password: "s3cret"},
			want:    esim.APNSettings{Name: new("travel.example"), Username: new("user1"), Password: new("s3cret")},
			apnStep: []string{"travel.example", "user1", "s3cret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			english := esim.NewInstructions(instructionsESIM, tt.apn, skygate.LangEN)
			for _, lang := range skygate.Languages {
				in := esim.NewInstructions(instructionsESIM, tt.apn, lang)
				if in.ICCID != instructionsESIM.ICCID || !sameAPN(in.APN, tt.want) {
					t.Errorf("%s: iccid %s, apn %+v, want %+v", lang, in.ICCID, in.APN, tt.want)
				}
				for platform, steps := range map[string][]string{"ios": in.IOS.Steps, "android": in.Android.Steps} {
					wantLen := 5
					if tt.apn != nil {
						wantLen = 6
					}
					if len(steps) != wantLen {
						t.Fatalf("%s %s: %d steps, want %d: %q", lang, platform, len(steps), wantLen, steps)
					}
					all := strings.Join(steps, "\n")
					// Manual entry names the SM-DP+ address and the matching ID.
					for _, want := range []string{"smdp.example.com", "MATCH-42", "SM-DP+"} {
						if !strings.Contains(all, want) {
							t.Errorf("%s %s: no %q in %q", lang, platform, want, steps)
						}
					}
					if strings.ContainsAny(all, "{}") {
						t.Errorf("%s %s: a placeholder is left: %q", lang, platform, steps)
					}
					for _, not := range tt.notInAny {
						if strings.Contains(all, not) {
							t.Errorf("%s %s: %q in %q", lang, platform, not, steps)
						}
					}
					for _, want := range tt.apnStep {
						if !strings.Contains(steps[len(steps)-1], want) {
							t.Errorf("%s %s: the last step %q does not name %q", lang, platform, steps[len(steps)-1], want)
						}
					}
				}
				if lang == skygate.LangEN {
					continue
				}
				// Every step is translated: none is the English one.
				for i, step := range append(in.IOS.Steps, in.Android.Steps...) {
					if en := append(english.IOS.Steps, english.Android.Steps...)[i]; step == en {
						t.Errorf("%s: step %d is the English text %q", lang, i, step)
					}
				}
			}
			if in := esim.NewInstructions(instructionsESIM, tt.apn, skygate.LangRU); !strings.Contains(in.IOS.Steps[0], "Подключите") {
				t.Errorf("Russian first step %q", in.IOS.Steps[0])
			}
		})
	}
}

func TestInstructions(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 1000)
		withAPN := MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage(func(p *skygate.ESIMPackage) {
			p.APN = &skygate.APN{Name: "internet.example", Password: "pw"}
			p.Price.Amount = 100
		}))[0]
		plain := MustOrder(t, b, b.pkg, 1).ESIMs[0]
		apn := MustOrder(t, b, withAPN, 1).ESIMs[0]

		in, err := b.svc.Instructions(t.Context(), b.acc.ID, plain.ICCID, "kk")
		storetest.MustNoError(t, err, "Instructions")
		if !in.APN.Automatic || in.APN.Name != nil || !strings.Contains(in.Android.Steps[2], plain.MatchingID) || !strings.Contains(in.IOS.Steps[0], "Wi-Fi желісіне") {
			t.Errorf("instructions of a package without APN: %+v", in)
		}
		in, err = b.svc.Instructions(t.Context(), b.acc.ID, apn.ICCID, "xx")
		storetest.MustNoError(t, err, "Instructions")
		if in.APN.Automatic || in.APN.Name == nil || *in.APN.Name != "internet.example" || in.APN.Username != nil || *in.APN.Password != "pw" ||
			!strings.Contains(in.IOS.Steps[5], "Mobile Data Network") || !strings.Contains(in.Android.Steps[5], "Access Point Names") {
			t.Errorf("instructions of a package with an APN: %+v", in)
		}

		other := setup(t, s, 0, 0)
		for name, iccid := range map[string]string{"another account's": plain.ICCID, "not an ICCID": "8999", "unknown": storetest.NewICCID()} {
			_, err := b.svc.Instructions(t.Context(), other.acc.ID, iccid, "en")
			if name == "unknown" {
				_, err = b.svc.Instructions(t.Context(), b.acc.ID, iccid, "en")
			}
			storetest.WantCode(t, err, skygate.CodeNotFound)
		}
	})
}

func sameAPN(a, b esim.APNSettings) bool {
	eq := func(x, y *string) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.Automatic == b.Automatic && eq(a.Name, b.Name) && eq(a.Username, b.Username) && eq(a.Password, b.Password)
}
