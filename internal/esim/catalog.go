package esim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// MaxPackagesPerSet bounds one SetPackages call.
const MaxPackagesPerSet = 500

// Packages answers GET /v2/catalog/esim/packages: the account's active packages in lang
// (one of skygate.Languages; anything else is en) matching q, as a catalog.Page with
// the body {"data":[…],"pagination":{"count","offset","total"}}, a strong ETag that
// changes with the account's catalog version, the language and the query, and
// Last-Modified at the last change of the account's packages. q comes from
// ParsePackageQuery, so limits, the name filter (folded, matched against the name in
// lang) and country follow the airport catalog; region, unlimited and top_up narrow
// it further, all filters combined; an iata filter is CodeBadRequest because packages
// belong to no airport.
func (s *Service) Packages(ctx context.Context, accountID, lang string, q PackageQuery) (*catalog.Page, error) {
	if q.IATA != "" {
		return nil, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter",
			Fields: []skygate.FieldError{{Field: "iata", Message: "is not a filter of eSIM packages"}}}
	}
	if q.Limit < 1 || q.Limit > catalog.MaxLimit || q.Offset < 0 || q.Offset > catalog.MaxOffset {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "limit or offset out of range")
	}
	lang = skygate.Language(lang)
	cat, err := s.store.ESIMCatalog(ctx, accountID)
	if err != nil {
		return nil, err
	}
	var matched []*skygate.ESIMPackageItem
	for _, p := range cat.Packages {
		if !q.matches(p) {
			continue
		}
		item := packageItem(p, lang)
		if q.Name != "" && !strings.Contains(catalog.Fold(item.Name), q.Name) {
			continue
		}
		matched = append(matched, item)
	}
	var data []*skygate.ESIMPackageItem
	if q.Offset < len(matched) {
		data = matched[q.Offset:min(q.Offset+q.Limit, len(matched))]
	}
	body := skygate.NewList(data, q.Offset, len(matched))
	return page(cat, lang, body, append([]string{"list", strconv.Itoa(q.Limit), strconv.Itoa(q.Offset)}, q.validatorParts()...)...)
}

// Package answers GET /v2/catalog/esim/packages/{packageID}: one active package of the
// account in lang as a bare object, or CodeNotFound (also for an inactive package or
// another account's).
func (s *Service) Package(ctx context.Context, accountID, lang, packageID string) (*catalog.Page, error) {
	lang = skygate.Language(lang)
	cat, err := s.store.ESIMCatalog(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for _, p := range cat.Packages {
		if p.ID == packageID && p.Active {
			return page(cat, lang, packageItem(p, lang), "item", p.ID)
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "eSIM package not found")
}

// packagesRepresentation names the shape of the catalog's answers in their ETags, so
// that a validator issued for another shape never matches: bump it whenever the item's
// shape changes (a field added, removed or computed differently) or the data it is
// computed from beside the catalog changes (Regions and the countries in them), as
// neither moves the catalog's version. v2: items gained regions and
// refund_window_days.
const packagesRepresentation = "esim-packages/v2"

// page encodes body with validators derived from the representation, the catalog
// version, the language and parts (length-prefixed, so distinct inputs never hash
// alike).
func page(cat *skygate.ESIMCatalog, lang string, body any, parts ...string) (*catalog.Page, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("esim: encode packages: %w", err)
	}
	h := sha256.New()
	for _, p := range append([]string{packagesRepresentation, cat.AccountID, strconv.FormatInt(cat.Version, 10), lang}, parts...) {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		h.Write([]byte(p))
	}
	var lastModified time.Time
	if cat.Version > 0 {
		lastModified = cat.UpdatedAt.UTC().Truncate(time.Second)
	}
	return &catalog.Page{
		Body:         b,
		ETag:         `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`,
		LastModified: lastModified,
		Language:     lang,
	}, nil
}

// AdminCatalog returns the account's packages, active or not, in the stored form with
// all four languages, or CodeNotFound for an unknown account.
func (s *Service) AdminCatalog(ctx context.Context, accountID string) (*skygate.ESIMCatalog, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.store.ESIMCatalog(ctx, accountID)
}

// SetPackages upserts the account's packages (admin): each is validated (every problem
// of every package reported at once, fields named "[i].name.ru" and so on), a package
// without an id gets a new one, ids must not repeat within the list, and 1 to
// MaxPackagesPerSet packages are accepted per call. Packages not in the list stay as
// they are; one is retired by sending it with active false. It returns the account's
// whole catalog after the change; an unknown account is CodeNotFound, an id of
// another account's package CodeConflict. The audit record (required) is committed
// with the change.
func (s *Service) SetPackages(ctx context.Context, accountID string, pkgs []*skygate.ESIMPackage, audit *skygate.AuditEvent) (*skygate.ESIMCatalog, error) {
	var problems []skygate.FieldError
	if len(pkgs) == 0 || len(pkgs) > MaxPackagesPerSet {
		problems = append(problems, skygate.FieldError{Field: "", Message: fmt.Sprintf("must list 1 to %d packages", MaxPackagesPerSet)})
	}
	seen := map[string]int{}
	for i, p := range pkgs {
		prefix := fmt.Sprintf("[%d]", i)
		if p == nil {
			problems = append(problems, skygate.FieldError{Field: prefix, Message: "must be an object"})
			continue
		}
		problems = append(problems, p.Validate(prefix)...)
		if j, dup := seen[p.ID]; dup && p.ID != "" {
			problems = append(problems, skygate.FieldError{Field: prefix + ".id", Message: fmt.Sprintf("repeats the id of [%d]", j)})
		}
		seen[p.ID] = i
	}
	if problems != nil {
		return nil, skygate.ValidationError(problems...)
	}
	for _, p := range pkgs {
		if p.ID == "" {
			p.ID = skygate.NewID()
		}
		p.AccountID = accountID
	}
	return s.store.SetESIMPackages(ctx, accountID, pkgs, s.now(), audit)
}
