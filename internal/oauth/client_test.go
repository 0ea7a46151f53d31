package oauth_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

func TestNewClientSecret(t *testing.T) {
	t.Parallel()
	a, b := MustSecret(t), MustSecret(t)
	if a == b {
		t.Fatal("two secrets are equal")
	}
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, oauth.ClientSecretPrefix)
		if !ok {
			t.Fatalf("%q lacks the prefix", s)
		}
		raw, err := base64.RawURLEncoding.Strict().DecodeString(rest)
		if err != nil || len(raw) != 32 {
			t.Fatalf("%q: %d bytes, %v", s, len(raw), err)
		}
	}
}

func TestSecretHasher(t *testing.T) {
	t.Parallel()
	h := oauth.NewSecretHasher(MustBox(t))
	secret := MustSecret(t)
	hash := h.Hash(secret)
	if len(hash) != 32 {
		t.Fatalf("hash is %d bytes", len(hash))
	}
	otherBox, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		hasher *oauth.SecretHasher
		secret string
		hash   []byte
		want   bool
	}{
		{"right secret", h, secret, hash, true},
		{"same key, new hasher", oauth.NewSecretHasher(MustBox(t)), secret, hash, true},
		{"wrong secret", h, MustSecret(t), hash, false},
		{"secret prefix", h, secret[:len(secret)-1], hash, false},
		{"empty secret", h, "", hash, false},
		{"other master key", oauth.NewSecretHasher(otherBox), secret, hash, false},
		{"truncated hash", h, secret, hash[:31], false},
		{"nil hash", h, secret, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.hasher.Verify(tt.secret, tt.hash); got != tt.want {
				t.Fatalf("Verify = %v, want %v", got, tt.want)
			}
		})
	}
	if h.VerifyUnknown(secret) || h.VerifyUnknown("no client has this secret") {
		t.Error("VerifyUnknown returned true")
	}
}

// TestClientAuthenticator: an unknown client and a wrong secret fail identically.
func TestClientAuthenticator(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	auth := oauth.NewClientAuthenticator(f.appCache, f.hasher)
	ctx := context.Background()

	app, acct, err := auth.Authenticate(ctx, oauth.ClientAuth{Method: oauth.AuthMethodPost, ID: id, Secret: secret})
	if err != nil || app.ClientID != id || acct.ID != app.AccountID {
		t.Fatalf("Authenticate = %v, %v, %v", app, acct, err)
	}
	var first string
	for _, c := range []oauth.ClientAuth{
		{Method: oauth.AuthMethodPost, ID: id, Secret: secret + "x"},
		{Method: oauth.AuthMethodPost, ID: "nobody", Secret: secret},
		{Method: oauth.AuthMethodPost, ID: id + "\x00", Secret: secret},
		{Method: oauth.AuthMethodPost, ID: "кто", Secret: secret},
		{Method: oauth.AuthMethodPost, ID: strings.Repeat("i", 256), Secret: secret},
		{Method: oauth.AuthMethodPost, ID: id},
		{Secret: secret},
	} {
		_, _, err := auth.Authenticate(ctx, c)
		var e *oauth.Error
		if !errors.As(err, &e) || e.Code != oauth.CodeInvalidClient || e.StatusOf() != 401 {
			t.Fatalf("%+v: err = %v", c, err)
		}
		if first == "" {
			first = e.Error()
		} else if e.Error() != first {
			t.Errorf("%+v: %q differs from %q", c, e.Error(), first)
		}
	}
}
