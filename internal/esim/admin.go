package esim

import (
	"context"

	"github.com/skygate/skygate"
)

// The admin reads of an account's eSIM business, for the employee console: what the
// partner reads of its own, for any account, with an unknown account CodeNotFound.
// Employees see status, usage and money, never the profiles' secrets: matching IDs
// stay sealed, so eSIMs come without MatchingID and ActivationCode.

// AdminBilling returns the account's balances and a page of its ledger, as Billing.
func (s *Service) AdminBilling(ctx context.Context, accountID string, p skygate.Page) (*Billing, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.Billing(ctx, accountID, p)
}

// AdminOrders returns a page of the account's orders, newest first, with their eSIMs
// (packages in lang, no activation codes). Paging is as for ListOrders.
func (s *Service) AdminOrders(ctx context.Context, accountID, lang string, p skygate.Page) (*skygate.List[*skygate.ESIMOrder], error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.listOrders(ctx, accountID, lang, p, s.name)
}

// AdminESIMs returns a page of the account's eSIMs matching f, newest first, with
// their status and usage (packages in lang, no activation codes). Filter and paging
// are as for ListESIMs.
func (s *Service) AdminESIMs(ctx context.Context, accountID, lang string, f skygate.ESIMFilter, p skygate.Page) (*skygate.List[*skygate.ESIM], error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.listESIMs(ctx, accountID, lang, f, p, s.name)
}
