package oauth_test

import (
	"testing"
	"time"
)

// TestClientAuthenticatorPreviousSecret: after a rotation with a grace period made by
// another replica, both secrets authenticate until the previous one's expiry by the
// injected clock, whatever the cache holds, and the previous one is refused from that
// instant; a second rotation drops the oldest secret.
func TestClientAuthenticatorPreviousSecret(t *testing.T) {
	t.Parallel()
	const grace = 10 * testAppTTL

	t.Run("both until the expiry", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, old := f.MustApplication(t, appOptions{})
		mustAuthenticate(t, f, id, old, "before rotation") // cached without a previous secret
		fresh := f.rotateWithGrace(t, id, grace)
		mustAuthenticate(t, f, id, fresh, "the new secret at once (reload)")
		mustAuthenticate(t, f, id, old, "the old secret within the grace period")
		f.clock.Advance(grace - time.Nanosecond)
		mustAuthenticate(t, f, id, old, "the old secret just before the expiry")
		mustAuthenticate(t, f, id, fresh, "the new secret just before the expiry")
		f.clock.Advance(time.Nanosecond)
		mustRefuse(t, f, id, old, "the old secret at the expiry")
		mustAuthenticate(t, f, id, fresh, "the new secret after the expiry")
	})
	t.Run("expiry inside the cache's ttl", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, old := f.MustApplication(t, appOptions{})
		fresh := f.rotateWithGrace(t, id, testAppTTL/2)
		mustAuthenticate(t, f, id, fresh, "the new secret (now cached with the previous one)")
		mustAuthenticate(t, f, id, old, "the old secret from the cached entry")
		f.clock.Advance(testAppTTL / 2)
		mustRefuse(t, f, id, old, "the old secret at its expiry, its entry still cached")
	})
	t.Run("second rotation drops the oldest", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, first := f.MustApplication(t, appOptions{})
		second := f.rotateWithGrace(t, id, grace)
		third := f.rotateWithGrace(t, id, grace)
		mustRefuse(t, f, id, first, "the first secret after a second rotation")
		mustAuthenticate(t, f, id, second, "the second secret, now the previous one")
		mustAuthenticate(t, f, id, third, "the third secret")
	})
	t.Run("at once", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, first := f.MustApplication(t, appOptions{})
		second := f.rotateWithGrace(t, id, grace)
		third := f.rotate(t, id)
		mustAuthenticate(t, f, id, third, "the newest secret")
		mustRefuse(t, f, id, second, "the previous secret after a rotation without grace")
		mustRefuse(t, f, id, first, "the first secret")
	})
}
