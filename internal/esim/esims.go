package esim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
	"github.com/skygate/skygate/internal/qr"
)

// ESIM returns the account's eSIM with its activation code (none for a Canceled eSIM,
// see present) and its package in lang, or CodeNotFound, also for another account's
// eSIM or a value that is not an ICCID.
func (s *Service) ESIM(ctx context.Context, accountID, iccid, lang string) (*skygate.ESIM, error) {
	if !skygate.IsICCID(iccid) {
		return nil, notFoundESIM()
	}
	e, err := s.store.ESIM(ctx, accountID, iccid)
	if err != nil {
		return nil, err
	}
	if err := s.present(ctx, accountID, lang, e); err != nil {
		return nil, err
	}
	return e, nil
}

// ListESIMs returns a page of the account's eSIMs matching f, newest first. An unknown
// status in f is CodeBadRequest; paging is as for ListOrders.
func (s *Service) ListESIMs(ctx context.Context, accountID, lang string, f skygate.ESIMFilter, p skygate.Page) (*skygate.List[*skygate.ESIM], error) {
	return s.listESIMs(ctx, accountID, lang, f, p, s.present)
}

// listESIMs is ListESIMs with fill preparing the eSIMs for the reader (present or name).
func (s *Service) listESIMs(ctx context.Context, accountID, lang string, f skygate.ESIMFilter, p skygate.Page, fill filler) (*skygate.List[*skygate.ESIM], error) {
	p, err := checkPage(p)
	if err != nil {
		return nil, err
	}
	if f.Status != "" && !f.Status.IsValid() {
		return nil, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter",
			Fields: []skygate.FieldError{{Field: "status", Message: "must be one of Assigned, Installed, Active, Depleted, Expired, Canceled"}}}
	}
	list, total, err := s.store.ListESIMs(ctx, accountID, f, p)
	if err != nil {
		return nil, err
	}
	if err := fill(ctx, accountID, lang, list...); err != nil {
		return nil, err
	}
	return skygate.NewList(list, p.Offset, total), nil
}

// QRCode returns a PNG of the account's eSIM's activation code, which a phone's camera
// or eSIM settings scan to install the profile, or CodeNotFound. A Canceled eSIM has
// no activation code to show (it was refunded): CodeInvalidESIMStatus.
func (s *Service) QRCode(ctx context.Context, accountID, iccid string) ([]byte, error) {
	e, err := s.ESIM(ctx, accountID, iccid, skygate.LangEN)
	if err != nil {
		return nil, err
	}
	if err := revealable(e); err != nil {
		return nil, err
	}
	return qr.PNG(e.ActivationCode)
}

// revealable returns CodeInvalidESIMStatus for a Canceled eSIM, whose activation code
// is never shown again (see present), and nil for any other.
func revealable(e *skygate.ESIM) error {
	if e.Status == skygate.ESIMCanceled {
		return skygate.Errorf(skygate.CodeInvalidESIMStatus, "the eSIM is Canceled; its activation code is no longer shown")
	}
	return nil
}

// TopUpRequest is the body of POST /v2/b2b/esims/{iccid}/topups.
type TopUpRequest struct {
	PackageID string `json:"package_id"`
}

// TopUpCommand asks for a top-up of the account's eSIM ICCID under an Idempotency-Key;
// the key's fingerprint covers the ICCID and TopUpRequest. The eSIM and its package
// are answered in Lang.
type TopUpCommand struct {
	AccountID      string
	ClientID       string
	IdempotencyKey string
	ICCID          string
	Lang           string
	TopUpRequest
}

// TopUp adds a top-up package to the account's eSIM (esim:write) under an
// Idempotency-Key, like Order: the key is checked, a known key answers the top-up it
// made (replayed), the eSIM must be the account's (CodeNotFound), package_id an active
// top-up package of the account that covers at least one country of the eSIM's package
// (CodeValidation). Then in one transaction the price is debited
// (CodeInsufficientFunds), data and validity are added (skygate.ESIM.ApplyTopUp: a
// Depleted or Expired eSIM becomes Active, a Canceled one is CodeInvalidESIMStatus) and
// the events written. The top-up holds the eSIM as it is after it.
func (s *Service) TopUp(ctx context.Context, cmd TopUpCommand) (t *skygate.TopUp, replayed bool, err error) {
	req, err := idempotent(cmd.AccountID, skygate.OperationESIMTopUp, cmd.IdempotencyKey, struct {
		ICCID string `json:"iccid"`
		TopUpRequest
	}{cmd.ICCID, cmd.TopUpRequest})
	if err != nil {
		return nil, false, err
	}
	if !skygate.IsICCID(cmd.ICCID) {
		return nil, false, notFoundESIM()
	}
	now := s.now()
	switch rec, err := idempotency.Lookup(ctx, s.store, req, now); {
	case err == nil:
		t, err := s.replayTopUp(ctx, cmd.AccountID, cmd.Lang, rec)
		return t, err == nil, err
	case !skygate.IsCode(err, skygate.CodeNotFound):
		return nil, false, err
	}
	e, err := s.store.ESIM(ctx, cmd.AccountID, cmd.ICCID)
	if err != nil {
		return nil, false, err
	}
	pkg, msg, err := s.activePackage(ctx, cmd.AccountID, cmd.PackageID, true)
	if err != nil {
		return nil, false, err
	}
	if msg == "" {
		msg, err = s.covers(ctx, cmd.AccountID, e, pkg)
		if err != nil {
			return nil, false, err
		}
	}
	if msg != "" {
		return nil, false, skygate.ValidationError(skygate.FieldError{Field: "package_id", Message: msg})
	}
	t = &skygate.TopUp{ID: skygate.NewID(), AccountID: cmd.AccountID, ClientID: cmd.ClientID, ICCID: cmd.ICCID,
		PackageID: pkg.ID, Price: pkg.Price, CreatedAt: stored(now)}
	rec, err := req.Record(t.ID, t, now) // before the eSIM changes: a replay reads the top-up by id
	if err != nil {
		return nil, false, err
	}
	known, err := s.store.TopUpESIM(ctx, rec, t, func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.ApplyTopUp(pkg, now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	})
	if err != nil {
		return nil, false, err
	}
	if known != nil { // a concurrent request with this key won
		if err := req.Match(known); err != nil {
			return nil, false, err
		}
		t, err := s.replayTopUp(ctx, cmd.AccountID, cmd.Lang, known)
		return t, err == nil, err
	}
	if err := s.present(ctx, cmd.AccountID, cmd.Lang, t.ESIM); err != nil {
		return nil, false, err
	}
	return t, false, nil
}

// covers returns a validation message when top-up package p covers no country of e's
// own package (a Türkiye plan does not top up an Uzbekistan profile), else "".
func (s *Service) covers(ctx context.Context, accountID string, e *skygate.ESIM, p *skygate.ESIMPackage) (string, error) {
	own, err := s.store.ESIMPackage(ctx, accountID, e.PackageID)
	if err != nil {
		return "", err
	}
	if slices.ContainsFunc(p.Countries, func(c string) bool { return slices.Contains(own.Countries, c) }) {
		return "", nil
	}
	return "covers none of the eSIM's countries", nil
}

// replayTopUp answers a known key with the top-up it made and the eSIM as it is now.
func (s *Service) replayTopUp(ctx context.Context, accountID, lang string, rec *skygate.IdempotencyRecord) (*skygate.TopUp, error) {
	t, err := s.store.TopUp(ctx, accountID, rec.ResourceID)
	if err != nil {
		return nil, fmt.Errorf("esim: the top-up %s of a stored key: %w", rec.ResourceID, err)
	}
	if err := s.present(ctx, accountID, lang, t.ESIM); err != nil {
		return nil, err
	}
	return t, nil
}

// Install is the sandbox's "the profile was downloaded": Assigned → Installed, with
// esim.status.changed. Another status is CodeConflict; an unknown eSIM CodeNotFound.
func (s *Service) Install(ctx context.Context, accountID, iccid, lang string) (*skygate.ESIM, error) {
	return s.change(ctx, accountID, iccid, lang, func(e *skygate.ESIM, now time.Time) error { return e.Install(now) })
}

// Activate is the sandbox's "the device attached to a network": Installed → Active,
// validity starts, with esim.status.changed.
func (s *Service) Activate(ctx context.Context, accountID, iccid, lang string) (*skygate.ESIM, error) {
	return s.change(ctx, accountID, iccid, lang, func(e *skygate.ESIM, now time.Time) error { return e.Activate(now) })
}

// ReportUsage is the sandbox's usage report: usedMB is the running total of data used
// (skygate.ESIM.ReportUsage). Reaching each of the account's usage thresholds
// (ESIMSettings, read before the change; 80 % and 100 % by default) emits
// esim.usage.threshold once per allowance; at 100 % the eSIM becomes Depleted with
// esim.status.changed.
func (s *Service) ReportUsage(ctx context.Context, accountID, iccid, lang string, usedMB int) (*skygate.ESIM, error) {
	if usedMB < 0 || usedMB > 1_000_000_000 {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "used_mb", Message: "must be an integer from 0 to 1000000000"})
	}
	set, err := s.store.ESIMSettings(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.change(ctx, accountID, iccid, lang, func(e *skygate.ESIM, _ time.Time) error {
		return e.ReportUsage(usedMB, set.UsageThresholds)
	})
}

// change applies fn to the account's eSIM at now in one transaction with the events
// of the change, and returns the eSIM presented for its owner.
func (s *Service) change(ctx context.Context, accountID, iccid, lang string, fn func(e *skygate.ESIM, now time.Time) error) (*skygate.ESIM, error) {
	if !skygate.IsICCID(iccid) {
		return nil, notFoundESIM()
	}
	now := s.now()
	e, err := s.store.UpdateESIM(ctx, accountID, iccid, now, func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := fn(after, now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	})
	if err != nil {
		return nil, err
	}
	if err := s.present(ctx, accountID, lang, e); err != nil {
		return nil, err
	}
	return e, nil
}

// ExpireDue moves every Active or Depleted eSIM whose validity has ended to Expired,
// with esim.status.changed, at most limit of them (all when limit <= 0), and returns
// how many. A worker calls it periodically; replicas may call it concurrently. An
// eSIM it cannot change does not hold up the others: the error, returned with the
// count, names each such eSIM for the worker's log, and the next call tries it again.
func (s *Service) ExpireDue(ctx context.Context, limit int) (int, error) {
	now := s.now()
	return s.store.ExpireESIMs(ctx, now, limit, func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Expire(now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	})
}
