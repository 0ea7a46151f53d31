package seal_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/skygate/skygate/internal/seal"
)

// MustBox returns a Box for a master key made of the byte b repeated.
func MustBox(tb testing.TB, b byte) *seal.Box {
	tb.Helper()
	box, err := seal.New(bytes.Repeat([]byte{b}, seal.KeySize))
	if err != nil {
		tb.Fatal(err)
	}
	return box
}

func TestNewKeyLength(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 16, 31, 33, 64} {
		if _, err := seal.New(make([]byte, n)); err == nil {
			t.Errorf("New(%d bytes) succeeded", n)
		}
	}
	if _, err := seal.New(seal.NewMasterKey()); err != nil {
		t.Errorf("New(NewMasterKey()): %v", err)
	}
}

func TestNewCopiesKey(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, seal.KeySize)
	box, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	want := box.DeriveKey("x")
	key[0] = 8
	if !bytes.Equal(box.DeriveKey("x"), want) {
		t.Fatal("Box depends on the caller's slice after New")
	}
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	box := MustBox(t, 1)
	tests := []struct {
		name      string
		plaintext []byte
		ad        []byte
	}{
		{"empty", nil, nil},
		{"no ad", []byte("secret"), nil},
		{"with ad", []byte("secret"), []byte("row-1")},
		{"large", bytes.Repeat([]byte("x"), 1<<16), []byte("row-2")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sealed := box.Seal(tt.plaintext, tt.ad)
			if len(sealed) != len(tt.plaintext)+29 {
				t.Errorf("len = %d, want %d", len(sealed), len(tt.plaintext)+29)
			}
			if sealed[0] != 1 {
				t.Errorf("version byte = %d", sealed[0])
			}
			got, err := box.Open(sealed, tt.ad)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Fatal("round trip changed the plaintext")
			}
		})
	}
}

func TestSealRandomNonce(t *testing.T) {
	t.Parallel()
	box := MustBox(t, 1)
	a, b := box.Seal([]byte("same"), nil), box.Seal([]byte("same"), nil)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of the same plaintext are equal")
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	box := MustBox(t, 1)
	sealed := box.Seal([]byte("secret"), []byte("ad"))
	flip := func(i int) []byte {
		c := bytes.Clone(sealed)
		c[i] ^= 1
		return c
	}
	tests := []struct {
		name string
		box  *seal.Box
		in   []byte
		ad   []byte
	}{
		{"wrong ad", box, sealed, []byte("other")},
		{"missing ad", box, sealed, nil},
		{"wrong key", MustBox(t, 2), sealed, []byte("ad")},
		{"version", box, flip(0), []byte("ad")},
		{"nonce", box, flip(5), []byte("ad")},
		{"ciphertext", box, flip(14), []byte("ad")},
		{"tag", box, flip(len(sealed) - 1), []byte("ad")},
		{"truncated", box, sealed[:len(sealed)-1], []byte("ad")},
		{"too short", box, sealed[:28], []byte("ad")},
		{"empty", box, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tt.box.Open(tt.in, tt.ad); !errors.Is(err, seal.ErrOpen) {
				t.Fatalf("err = %v, want ErrOpen", err)
			}
		})
	}
}

func TestDeriveKey(t *testing.T) {
	t.Parallel()
	box := MustBox(t, 1)
	a := box.DeriveKey(seal.PurposeClientSecret)
	if len(a) != 32 {
		t.Fatalf("len = %d", len(a))
	}
	if !bytes.Equal(a, MustBox(t, 1).DeriveKey(seal.PurposeClientSecret)) {
		t.Error("same master key and purpose give different keys")
	}
	if bytes.Equal(a, box.DeriveKey(seal.PurposeLoginState)) {
		t.Error("different purposes give the same key")
	}
	if bytes.Equal(a, MustBox(t, 2).DeriveKey(seal.PurposeClientSecret)) {
		t.Error("different master keys give the same key")
	}
}

// TestDerivedBoxIsIndependent shows the documented pattern: a Box made from a subkey
// cannot open what the master Box sealed, and the other way round.
func TestDerivedBoxIsIndependent(t *testing.T) {
	t.Parallel()
	master := MustBox(t, 1)
	sub, err := seal.New(master.DeriveKey(seal.PurposeWebhookSecret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Open(master.Seal([]byte("x"), nil), nil); err == nil {
		t.Error("sub box opened a master value")
	}
	if _, err := master.Open(sub.Seal([]byte("x"), nil), nil); err == nil {
		t.Error("master box opened a sub value")
	}
}

// TestGolden pins the derivation and the sealed format: stored rows and replicas on
// other versions depend on both, so a change here is a breaking change.
func TestGolden(t *testing.T) {
	t.Parallel()
	box := MustBox(t, 0x42)
	const wantKey = "949d855b46a0d4b03694fd3cb4b6e67f489da13301359502dc0841f36cebaedc"
	if got := hex.EncodeToString(box.DeriveKey("golden")); got != wantKey {
		t.Errorf("DeriveKey(golden) = %s", got)
	}
	sealed, _ := hex.DecodeString("016f0b494ab12f209f274598f9361fb98f2a2869d073994bd73cef800ca5bc00dee21fd355f2e4ad86fe7b3b38")
	got, err := box.Open(sealed, []byte("golden-ad"))
	if err != nil || string(got) != "golden plaintext" {
		t.Errorf("Open(golden) = %q, %v", got, err)
	}
}
