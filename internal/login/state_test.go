package login

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func testState(now time.Time) *loginState {
	return &loginState{
		RedirectURI: spaRedirect, Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
		SPAState: "spa", Nonce: newRandom(), Binding: bindingHash("cookie"),
		Expires: now.Add(StateTTL).Unix(),
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	k := deriveKeys(bytes.Repeat([]byte{1}, 32))
	now := time.Unix(1_750_000_000, 0)
	want := testState(now)
	signed := k.signState(want)
	if len(signed) > 400 {
		t.Errorf("state is %d characters; keep it compact", len(signed))
	}
	got, err := k.verifyState(signed, now.Add(StateTTL-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if *got != *want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestStateExpiry(t *testing.T) {
	t.Parallel()
	k := deriveKeys(bytes.Repeat([]byte{1}, 32))
	now := time.Unix(1_750_000_000, 0)
	signed := k.signState(testState(now))
	tests := []struct {
		name string
		at   time.Duration
		err  error
	}{
		{"just issued", 0, nil},
		{"a second before expiry", StateTTL - time.Second, nil},
		{"at expiry", StateTTL, errStateExpired},
		{"long after", 24 * time.Hour, errStateExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := k.verifyState(signed, now.Add(tt.at))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			// An expired state is still authentic: the caller may use its redirect URI.
			if st == nil || st.RedirectURI != spaRedirect {
				t.Fatalf("state = %+v", st)
			}
		})
	}
}

func TestStateTampered(t *testing.T) {
	t.Parallel()
	k := deriveKeys(bytes.Repeat([]byte{1}, 32))
	other := deriveKeys(bytes.Repeat([]byte{2}, 32))
	now := time.Unix(1_750_000_000, 0)
	signed := k.signState(testState(now))
	payload, sig, _ := strings.Cut(signed, ".")
	enc := base64.RawURLEncoding

	evil := testState(now)
	evil.RedirectURI = "https://evil.example/steal"
	evilPayload, _, _ := strings.Cut(k.signState(evil), ".")

	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	tests := []struct {
		name  string
		state string
	}{
		{"empty", ""},
		{"no signature", payload},
		{"empty signature", payload + "."},
		{"flipped payload byte", flip(payload, 10) + "." + sig},
		{"flipped signature byte", payload + "." + flip(sig, 5)},
		{"another payload with this signature", evilPayload + "." + sig},
		{"signed with another key", other.signState(testState(now))},
		{"truncated signature", payload + "." + sig[:20]},
		{"padded signature", payload + "." + sig + "="},
		{"extra segment", signed + ".x"},
		{"not base64", "!!!." + sig},
		{"too long", strings.Repeat("a", maxStateLen+1)},
		{"signed garbage", func() string {
			p := enc.EncodeToString([]byte(`{"r":"x"}`))
			return p + "." + enc.EncodeToString(k.stateMAC(p))
		}()},
		{"signed with an unknown member", func() string {
			p := enc.EncodeToString([]byte(`{"r":"x","c":"c","n":"n","b":"b","e":99999999999,"admin":true}`))
			return p + "." + enc.EncodeToString(k.stateMAC(p))
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := k.verifyState(tt.state, now)
			if !errors.Is(err, errStateInvalid) || st != nil {
				t.Fatalf("verifyState = %+v, %v; want nothing and errStateInvalid", st, err)
			}
		})
	}
}

func TestUpstreamVerifier(t *testing.T) {
	t.Parallel()
	k := deriveKeys(bytes.Repeat([]byte{1}, 32))
	v := k.upstreamVerifier("nonce-1")
	if !validVerifier(v) {
		t.Fatalf("upstream verifier %q is not an RFC 7636 verifier", v)
	}
	if v != k.upstreamVerifier("nonce-1") {
		t.Error("the verifier is not reproducible from the nonce")
	}
	if v == k.upstreamVerifier("nonce-2") || v == deriveKeys(bytes.Repeat([]byte{2}, 32)).upstreamVerifier("nonce-1") {
		t.Error("different nonces or keys give the same verifier")
	}
	if bytes.Equal(k.state, k.upstream) {
		t.Error("the state MAC key and the verifier key are the same")
	}
}
