package esim

import (
	"context"
	"fmt"
	"time"

	"github.com/skygate/skygate"
)

// Billing is the body of GET /v2/b2b/billing and GET /v2/b2b/esim/billing: the
// balance in every currency the account holds (ordered by currency; a currency never
// credited is absent, meaning zero), available and reserved, and a page of the
// ledger, newest first. Bookings and eSIMs share the balances (skygate.Balance).
type Billing struct {
	Balances []skygate.Balance                   `json:"balances"`
	Ledger   *skygate.List[*skygate.LedgerEntry] `json:"ledger"`
}

// Billing returns the account's balances and a page of its ledger (esim:read). Paging
// is as for ListOrders.
func (s *Service) Billing(ctx context.Context, accountID string, p skygate.Page) (*Billing, error) {
	p, err := checkPage(p)
	if err != nil {
		return nil, err
	}
	balances, err := s.store.ESIMBalances(ctx, accountID)
	if err != nil {
		return nil, err
	}
	entries, total, err := s.store.ListLedger(ctx, accountID, p)
	if err != nil {
		return nil, err
	}
	return &Billing{Balances: balances, Ledger: skygate.NewList(entries, p.Offset, total)}, nil
}

// CreditRequest is an admin's credit: Amount (positive, minor units) in Currency, Kind
// credit (prepaid funds; the default) or refund (money given back, Reference naming the
// order or top-up), and free texts shown in the ledger.
type CreditRequest struct {
	Amount      skygate.Money      `json:"amount"`
	Kind        skygate.LedgerKind `json:"kind"`
	Reference   string             `json:"reference"`
	Description string             `json:"description"`
}

// Limits of the free texts of a credit.
const (
	MaxReferenceLen   = 128
	MaxDescriptionLen = 256
)

// AddCredit adds funds to the account's balance (admin), committing the audit record
// (required) with them, and returns the ledger entry with the balance after it. Invalid input is CodeValidation with every problem; an
// unknown account CodeNotFound.
func (s *Service) AddCredit(ctx context.Context, accountID string, req CreditRequest, audit *skygate.AuditEvent) (*skygate.LedgerEntry, error) {
	if req.Kind == "" {
		req.Kind = skygate.LedgerCredit
	}
	var problems []skygate.FieldError
	bad := func(field, msg string) { problems = append(problems, skygate.FieldError{Field: field, Message: msg}) }
	if req.Amount.Amount < 1 || req.Amount.Amount > skygate.MaxMoneyAmount {
		bad("amount.amount", fmt.Sprintf("must be an integer from 1 to %d minor units", skygate.MaxMoneyAmount))
	}
	if !skygate.IsCurrency(req.Amount.Currency) {
		bad("amount.currency", "must be an ISO 4217 code such as USD")
	}
	if req.Kind != skygate.LedgerCredit && req.Kind != skygate.LedgerRefund {
		bad("kind", "must be credit or refund")
	}
	if msg := checkText(req.Reference, MaxReferenceLen); msg != "" {
		bad("reference", msg)
	}
	if msg := checkText(req.Description, MaxDescriptionLen); msg != "" {
		bad("description", msg)
	}
	if problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	e := &skygate.LedgerEntry{
		ID: skygate.NewID(), AccountID: accountID, Kind: req.Kind, Amount: req.Amount,
		Reference: req.Reference, Description: req.Description, CreatedAt: s.now(),
	}
	if err := s.store.CreditBalance(ctx, e, audit); err != nil {
		return nil, err
	}
	return e, nil
}

// BillingSettings returns the account's billing settings: its low-balance thresholds
// (esim:read or booking.fasttrack:read).
func (s *Service) BillingSettings(ctx context.Context, accountID string) (*skygate.BillingSettings, error) {
	return s.store.BillingSettings(ctx, accountID)
}

// SetBillingSettings replaces the account's billing settings (esim:write or
// booking.fasttrack:write) and returns them as stored, thresholds ordered by currency.
// LowBalanceThresholds is required (an empty list removes every threshold); invalid
// input is CodeValidation with every problem.
func (s *Service) SetBillingSettings(ctx context.Context, accountID string, set *skygate.BillingSettings) (*skygate.BillingSettings, error) {
	switch {
	case set.LowBalanceThresholds == nil:
		return nil, skygate.ValidationError(skygate.FieldError{Field: "low_balance_thresholds",
			Message: "is required; an empty list removes every threshold"})
	case len(set.LowBalanceThresholds) > skygate.MaxLowBalanceThresholds:
		return nil, skygate.ValidationError(skygate.FieldError{Field: "low_balance_thresholds",
			Message: fmt.Sprintf("must list at most %d thresholds", skygate.MaxLowBalanceThresholds)})
	}
	if problems := set.Validate(); problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	return s.store.SetBillingSettings(ctx, accountID, set, s.now())
}

// StatementMonthLayout is the form of a statement's month: YYYY-MM.
const StatementMonthLayout = "2006-01"

// DefaultStatementChunk is how many ledger lines Statement reads at a time unless
// Config.StatementChunk says otherwise: a month of any size is read in bounded memory.
const DefaultStatementChunk = 1000

// Statement passes the account's ledger lines of month (YYYY-MM, a UTC month) to
// each, oldest first, in chunks of at most the service's statement chunk, reading the
// next chunk only after each returned; it is never called for a month without lines.
// Another form of month is CodeBadRequest, before any call of each; an error of each
// stops the statement and is returned.
func (s *Service) Statement(ctx context.Context, accountID, month string, each func([]*skygate.LedgerEntry) error) error {
	from, err := time.Parse(StatementMonthLayout, month)
	if err != nil || from.Format(StatementMonthLayout) != month {
		return skygate.BadParameter("month", "must have the form YYYY-MM, such as 2025-03")
	}
	to := from.AddDate(0, 1, 0)
	for after := int64(0); ; {
		lines, last, err := s.store.LedgerBetween(ctx, accountID, from, to, after, s.statementChunk)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			if err := each(lines); err != nil {
				return err
			}
		}
		if len(lines) < s.statementChunk {
			return nil
		}
		after = last
	}
}
