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
func (s *Service) AdminOrders(ctx context.Context, accountID, lang string, p skygate.Page) (*List[*skygate.ESIMOrder], error) {
	p, err := checkPage(p)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	orders, total, err := s.store.ListESIMOrders(ctx, accountID, p)
	if err != nil {
		return nil, err
	}
	var esims []*skygate.ESIM
	for _, o := range orders {
		esims = append(esims, o.ESIMs...)
	}
	if err := s.name(ctx, accountID, language(lang), esims...); err != nil {
		return nil, err
	}
	return newList(orders, p.Offset, total), nil
}

// AdminESIMs returns a page of the account's eSIMs matching f, newest first, with
// their status and usage (packages in lang, no activation codes). Filter and paging
// are as for ListESIMs.
func (s *Service) AdminESIMs(ctx context.Context, accountID, lang string, f skygate.ESIMFilter, p skygate.Page) (*List[*skygate.ESIM], error) {
	p, err := checkPage(p)
	if err != nil {
		return nil, err
	}
	if f.Status != "" && !f.Status.IsValid() {
		return nil, errESIMStatus()
	}
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	list, total, err := s.store.ListESIMs(ctx, accountID, f, p)
	if err != nil {
		return nil, err
	}
	if err := s.name(ctx, accountID, language(lang), list...); err != nil {
		return nil, err
	}
	return newList(list, p.Offset, total), nil
}
