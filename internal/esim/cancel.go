package esim

import (
	"context"
	"time"

	"github.com/skygate/skygate"
)

// Cancel cancels the account's unused eSIM for a refund (esim:write): an Assigned eSIM
// whose profile was never downloaded becomes Canceled (skygate.ESIM.Cancel), with
// esim.status.changed, and in the same transaction what was paid for it (its order's
// unit price and every top-up's price), less what was refunded on that order or
// top-up already, goes back to the balance, one refund line naming the ICCID per
// payment (skygate.ESIMCancelStore). The refund window is the one the eSIM was sold
// with (skygate.ESIM.RefundUntil), whatever its package's window is now: at or after
// its end, or without one, it is CodeRefundWindowClosed; an eSIM in any other status,
// or whose profile left Released, is CodeInvalidESIMStatus. A Canceled eSIM is
// answered as it is and moves no money, so a retried cancel succeeds. The eSIM is
// answered presented for its owner in lang; another account's eSIM, or a value that
// is not an ICCID, is CodeNotFound.
func (s *Service) Cancel(ctx context.Context, accountID, iccid, lang string) (*skygate.ESIM, error) {
	if !skygate.IsICCID(iccid) {
		return nil, notFoundESIM()
	}
	now := s.now()
	e, err := s.store.CancelESIM(ctx, accountID, iccid, now, func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Cancel(now); err != nil {
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

// History returns a page of the history of the account's eSIM, oldest first: its
// order, top-ups, status and profile changes and refunds (skygate.ESIMHistoryEntry).
// Paging is as for ListOrders; another account's eSIM, or a value that is not an
// ICCID, is CodeNotFound.
func (s *Service) History(ctx context.Context, accountID, iccid string, p skygate.Page) (*skygate.List[*skygate.ESIMHistoryEntry], error) {
	p, err := checkPage(p)
	if err != nil {
		return nil, err
	}
	if !skygate.IsICCID(iccid) {
		return nil, notFoundESIM()
	}
	entries, total, err := s.store.ESIMHistory(ctx, accountID, iccid, p)
	if err != nil {
		return nil, err
	}
	return skygate.NewList(entries, p.Offset, total), nil
}

// refundableUntil returns the end of e's refund window (RefundUntil, fixed at its
// sale) if a cancel at now could still refund it (Assigned, profile Released, a window
// that has not ended), else nil.
func refundableUntil(e *skygate.ESIM, now time.Time) *time.Time {
	if !e.Installable() || e.RefundUntil == nil || !now.Before(*e.RefundUntil) {
		return nil
	}
	return new(*e.RefundUntil)
}
