package identity

import (
	"context"
	"strings"

	"github.com/skygate/skygate"
)

// NewAccount creates an account. Its JSON form is the admin API's request body and the
// audit record's details.
type NewAccount struct {
	// Name is the account's display name, unique; it is trimmed.
	Name string `json:"name"`
}

// CreateAccount creates an active account. An invalid name is CodeValidation, a name
// already taken CodeConflict.
func (s *Service) CreateAccount(ctx context.Context, by skygate.Actor, c NewAccount) (*skygate.Account, error) {
	if err := invalid(checkName("name", c.Name)); err != nil {
		return nil, err
	}
	return s.createAccount(ctx, by, c)
}

// createAccount inserts the account of a valid command, audited.
func (s *Service) createAccount(ctx context.Context, by skygate.Actor, c NewAccount) (*skygate.Account, error) {
	now := s.now().UTC()
	c.Name = strings.TrimSpace(c.Name)
	a := &skygate.Account{ID: skygate.NewID(), Name: c.Name, Status: skygate.AccountActive, CreatedAt: now, UpdatedAt: now}
	audit, err := by.Audit(now, "account.create", accountType, a.ID, a.ID, c)
	if err != nil {
		return nil, err
	}
	if err := s.store.CreateAccount(ctx, a, audit); err != nil {
		return nil, err
	}
	return a, nil
}

// Account returns the account or CodeNotFound.
func (s *Service) Account(ctx context.Context, accountID string) (*skygate.Account, error) {
	return s.store.Account(ctx, accountID)
}

// Accounts returns a page of accounts in the order of creation, and the total.
func (s *Service) Accounts(ctx context.Context, p skygate.Page) ([]*skygate.Account, int, error) {
	return s.store.ListAccounts(ctx, p)
}

// StatusChange sets an account's status. Its JSON form is the admin API's request
// body and the audit record's details.
type StatusChange struct {
	AccountID string                `json:"-"`
	Status    skygate.AccountStatus `json:"status"`
}

// SetAccountStatus activates or suspends the account and returns it. A suspended
// account's tokens stop working and it gets no new ones; callers that cache statuses
// apply the result. A status other than active or suspended is CodeValidation, an
// unknown account CodeNotFound.
func (s *Service) SetAccountStatus(ctx context.Context, by skygate.Actor, c StatusChange) (*skygate.Account, error) {
	if c.Status != skygate.AccountActive && c.Status != skygate.AccountSuspended {
		return nil, skygate.ValidationError(skygate.FieldError{Field: "status", Message: "must be active or suspended"})
	}
	now := s.now()
	audit, err := by.Audit(now, "account.update", accountType, c.AccountID, c.AccountID, c)
	if err != nil {
		return nil, err
	}
	return s.store.SetAccountStatus(ctx, c.AccountID, c.Status, now, audit)
}
