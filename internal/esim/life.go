package esim

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

// The life of an eSIM after its sale that the service drives beside the status
// machine: the profile's state as the SM-DP+ reports it, the account's usage
// thresholds and the expiry warnings.

// SetProfileState is the sandbox's report of the SM-DP+ that the profile of the
// account's eSIM is now in state (skygate.ESIM.SetProfileState): esim.profile.changed,
// and esim.status.changed when a profile reaching the device makes an Assigned eSIM
// Installed. The same state again changes nothing and emits nothing; a move the
// profile's machine refuses, or any report on a Canceled eSIM, is
// CodeInvalidESIMStatus; an unknown state CodeValidation at "state".
func (s *Service) SetProfileState(ctx context.Context, accountID, iccid, lang string, state skygate.ProfileState) (*skygate.ESIM, error) {
	if !state.IsValid() {
		// Checked before the eSIM is read, so that a bad body is 422 for any ICCID.
		return nil, skygate.ValidationError(skygate.FieldError{Field: "state", Message: "must be one of Released, Downloaded, Installed, Enabled, Disabled, Deleted"})
	}
	return s.change(ctx, accountID, iccid, lang, func(e *skygate.ESIM, now time.Time) error {
		return e.SetProfileState(state, now)
	})
}

// ESIMSettings returns the account's eSIM settings (esim:read):
// skygate.DefaultUsageThresholds until it sets its own.
func (s *Service) ESIMSettings(ctx context.Context, accountID string) (*skygate.ESIMSettings, error) {
	return s.store.ESIMSettings(ctx, accountID)
}

// SetESIMSettings replaces the account's eSIM settings (esim:write) and returns them
// as stored. UsageThresholds is required; invalid input is CodeValidation with every
// problem (skygate.ESIMSettings.Validate). New thresholds apply to the usage reported
// from then on: a threshold an eSIM already announced in its current allowance is not
// announced again, and one it is already past when it is added is announced at the
// next report.
func (s *Service) SetESIMSettings(ctx context.Context, accountID string, set *skygate.ESIMSettings) (*skygate.ESIMSettings, error) {
	if problems := set.Validate(); problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	return s.store.SetESIMSettings(ctx, accountID, set, s.now())
}

// WarnExpiring sends esim.expiring for every eSIM of every account whose expiry
// warning is due (skygate.ESIM.DueExpiryWarning: 3 days and 1 day before expires_at,
// once each per validity period, the more urgent one alone when both are due), at most
// limit of them (all when limit <= 0), and returns how many. A worker calls it
// periodically; replicas may call it concurrently and never send one warning twice.
// As in ExpireDue, an eSIM it cannot warn does not hold up the others.
//
// A warning is judged at the later of the sweep's time and the eSIM's last change: an
// eSIM activated (or topped up) after the sweep read the clock is warned as of its
// change, so that a day pass activated meanwhile gets its 1-day warning, not the
// 3-day one its expiry would have been due for at the sweep's earlier time.
func (s *Service) WarnExpiring(ctx context.Context, limit int) (int, error) {
	now := s.now()
	return s.store.WarnExpiringESIMs(ctx, now, limit, func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		at := now
		if before.UpdatedAt.After(at) {
			at = before.UpdatedAt
		}
		days, ok := after.DueExpiryWarning(at)
		if !ok {
			return nil, skygate.Errorf(skygate.CodeConflict, "no expiry warning of eSIM %s is due", after.ICCID)
		}
		after.WarnExpiry(days)
		ev, err := skygate.ESIMExpiringEvent(after, days, at)
		if err != nil {
			return nil, err
		}
		return []*skygate.Event{ev}, nil
	})
}
