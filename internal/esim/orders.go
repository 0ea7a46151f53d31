package esim

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
)

// OrderRequest is the body of POST /v2/b2b/esim/orders.
type OrderRequest struct {
	PackageID        string `json:"package_id"`
	Quantity         int    `json:"quantity"`
	PartnerReference string `json:"partner_reference"`
}

// OrderCommand asks for an order of the account's client under an Idempotency-Key;
// the key's fingerprint covers OrderRequest. The order's eSIMs and their packages are
// answered in Lang.
type OrderCommand struct {
	AccountID      string
	ClientID       string
	IdempotencyKey string
	Lang           string
	// Livemode is false for a sandbox application or deployment (skygate.ESIMOrder).
	Livemode bool
	OrderRequest
}

// Order places an order for the account's client (esim:write), all or nothing: it
// checks the key (CodeBadRequest), answers a known key with the order it created, as
// it is now (replayed), or CodeIdempotencyConflict for a different request, validates
// the request (CodeValidation: quantity 1–50, partner_reference at most 128 characters
// without control characters, package_id an active package of the account), and then
// in one transaction claims the key, takes Quantity profiles from the account's pool,
// debits the total from the balance in the package's currency and writes
// esim.order.completed to the outbox. An empty pool is CodePoolExhausted, a short
// balance CodeInsufficientFunds; a rejected request does not use up its key. The order
// holds its eSIMs with their activation codes.
func (s *Service) Order(ctx context.Context, cmd OrderCommand) (o *skygate.ESIMOrder, replayed bool, err error) {
	req, err := idempotent(cmd.AccountID, skygate.OperationESIMOrder, cmd.IdempotencyKey, cmd.OrderRequest)
	if err != nil {
		return nil, false, err
	}
	now := s.now()
	// A known key is answered from its record whatever the request now holds (its
	// package withdrawn since, say). A new key, the common case, is not read first:
	// the transaction claims the key before it charges or allocates, and returns the
	// record of a known one; only a request that fails validation looks its key up.
	pkg, err := s.validateOrder(ctx, cmd.AccountID, cmd.OrderRequest)
	if err != nil {
		rec, lookup := idempotency.Lookup(ctx, s.store, req, now)
		switch {
		case lookup == nil:
			o, err := s.replayOrder(ctx, cmd.AccountID, cmd.Lang, rec)
			return o, err == nil, err
		case !skygate.IsCode(lookup, skygate.CodeNotFound):
			return nil, false, lookup
		}
		return nil, false, err
	}
	o = &skygate.ESIMOrder{
		ID: skygate.NewID(), AccountID: cmd.AccountID, ClientID: cmd.ClientID, Status: skygate.ESIMOrderCompleted,
		Livemode: cmd.Livemode, PackageID: pkg.ID, Quantity: cmd.Quantity, PartnerReference: cmd.PartnerReference,
		UnitPrice: pkg.Price, Total: skygate.Money{Amount: pkg.Price.Amount * int64(cmd.Quantity), Currency: pkg.Price.Currency},
		ESIMs: []*skygate.ESIM{}, CreatedAt: stored(now),
	}
	rec, err := req.Record(o.ID, o, now) // before allocation: no eSIMs, no activation codes
	if err != nil {
		return nil, false, err
	}
	known, err := s.store.CreateESIMOrder(ctx, rec, o, func(o *skygate.ESIMOrder) ([]*skygate.Event, error) {
		return skygate.ESIMOrderEvents(o, now)
	})
	if err != nil {
		return nil, false, err
	}
	if known != nil { // a concurrent request with this key won
		if err := req.Match(known); err != nil {
			return nil, false, err
		}
		o, err := s.replayOrder(ctx, cmd.AccountID, cmd.Lang, known)
		return o, err == nil, err
	}
	item := packageItem(pkg, skygate.Language(cmd.Lang))
	for _, e := range o.ESIMs {
		if err := s.reveal(e); err != nil {
			return nil, false, err
		}
		s.installLinks(cmd.AccountID, e)
		e.Package = item
	}
	return o, false, nil
}

// validateOrder checks req and returns its package.
func (s *Service) validateOrder(ctx context.Context, accountID string, req OrderRequest) (*skygate.ESIMPackage, error) {
	var problems []skygate.FieldError
	if req.Quantity < skygate.MinESIMOrderQuantity || req.Quantity > skygate.MaxESIMOrderQuantity {
		problems = append(problems, skygate.FieldError{Field: "quantity", Message: "must be an integer from 1 to 50"})
	}
	if msg := checkText(req.PartnerReference, skygate.MaxPartnerReferenceLen); msg != "" {
		problems = append(problems, skygate.FieldError{Field: "partner_reference", Message: msg})
	}
	pkg, msg, err := s.activePackage(ctx, accountID, req.PackageID, false)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		problems = append(problems, skygate.FieldError{Field: "package_id", Message: msg})
	}
	if problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	return pkg, nil
}

// activePackage returns the account's active package id (a top-up package when topUp),
// or a validation message saying why it cannot be bought.
func (s *Service) activePackage(ctx context.Context, accountID, id string, topUp bool) (*skygate.ESIMPackage, string, error) {
	if id == "" {
		return nil, "is required", nil
	}
	if !skygate.IsID(id) {
		return nil, "is not a package of this account", nil
	}
	pkg, err := s.store.ESIMPackage(ctx, accountID, id)
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return nil, "is not a package of this account", nil
	case err != nil:
		return nil, "", err
	case !pkg.Active:
		return nil, "is not available any more", nil
	case topUp && !pkg.TopUp:
		return nil, "is not a top-up package", nil
	}
	return pkg, "", nil
}

// checkText returns why s is not an acceptable free text of at most n characters, or "".
func checkText(s string, n int) string {
	switch {
	case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
		return "must be text without control characters"
	case utf8.RuneCountInString(s) > n:
		return fmt.Sprintf("must be at most %d characters", n)
	}
	return ""
}

// replayOrder answers a known key with the order it created, as it is now: the
// record names the order (its stored answer holds no eSIMs).
func (s *Service) replayOrder(ctx context.Context, accountID, lang string, rec *skygate.IdempotencyRecord) (*skygate.ESIMOrder, error) {
	o, err := s.GetOrder(ctx, accountID, rec.ResourceID, lang)
	if err != nil {
		return nil, fmt.Errorf("esim: the order %s of a stored key: %w", rec.ResourceID, err)
	}
	return o, nil
}

// GetOrder returns the account's order with its eSIMs (activation codes included,
// packages in lang), or CodeNotFound, also for another account's order.
func (s *Service) GetOrder(ctx context.Context, accountID, orderID, lang string) (*skygate.ESIMOrder, error) {
	if !skygate.IsID(orderID) {
		return nil, skygate.Errorf(skygate.CodeNotFound, "eSIM order not found")
	}
	o, err := s.store.ESIMOrder(ctx, accountID, orderID)
	if err != nil {
		return nil, err
	}
	if err := s.present(ctx, accountID, lang, o.ESIMs...); err != nil {
		return nil, err
	}
	return o, nil
}

// ListOrders returns a page of the account's orders, newest first, with their eSIMs. A
// zero Limit is DefaultLimit; out-of-range values are CodeBadRequest.
func (s *Service) ListOrders(ctx context.Context, accountID, lang string, p skygate.Page) (*skygate.List[*skygate.ESIMOrder], error) {
	return s.listOrders(ctx, accountID, lang, p, s.present)
}

// listOrders is ListOrders with fill preparing the eSIMs for the reader (present or
// name).
func (s *Service) listOrders(ctx context.Context, accountID, lang string, p skygate.Page, fill filler) (*skygate.List[*skygate.ESIMOrder], error) {
	p, err := checkPage(p)
	if err != nil {
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
	if err := fill(ctx, accountID, lang, esims...); err != nil {
		return nil, err
	}
	return skygate.NewList(orders, p.Offset, total), nil
}
