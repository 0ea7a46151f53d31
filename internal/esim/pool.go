package esim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// Limits of a pool upload.
const (
	MaxPoolUpload = 10_000
	// maxReported bounds the field errors of one upload; one more entry says how many
	// were left out.
	maxReported = 100
)

// PoolColumns is the CSV header of a pool upload, in any order.
var PoolColumns = []string{"iccid", "smdp_address", "matching_id"}

// ProfileInput is one profile of a pool upload. Line is the CSV line it came from
// (0 for JSON), used in error messages.
type ProfileInput struct {
	ICCID       string `json:"iccid"`
	SMDPAddress string `json:"smdp_address"`
	MatchingID  string `json:"matching_id"`
	Line        int    `json:"-"`
}

// ImportResult is the answer to a pool upload: how many profiles were imported and the
// pool's counts afterwards.
type ImportResult struct {
	Imported int                 `json:"imported"`
	Pool     *skygate.PoolCounts `json:"pool"`
}

// ParsePool decodes a pool upload by its Content-Type: application/json is an array of
// {"iccid","smdp_address","matching_id"} (no other fields), text/csv a header naming
// exactly PoolColumns (in any order, case-insensitive) and one profile per row. A body
// that cannot be decoded is CodeBadRequest; another media type
// CodeUnsupportedMediaType. Values are trimmed of surrounding spaces; they are checked
// by ImportPool.
func ParsePool(contentType string, body []byte) ([]ProfileInput, error) {
	switch mt, _, err := mime.ParseMediaType(contentType); {
	case err == nil && mt == "application/json":
		return parsePoolJSON(body)
	case err == nil && mt == "text/csv":
		return parsePoolCSV(body)
	}
	return nil, skygate.Errorf(skygate.CodeUnsupportedMediaType, "the body must be application/json or text/csv")
}

func parsePoolJSON(body []byte) ([]ProfileInput, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var in []ProfileInput
	if err := dec.Decode(&in); err != nil {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body must be a JSON array of {iccid, smdp_address, matching_id}: %s", jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body must hold exactly one JSON array")
	}
	for i := range in {
		trim(&in[i])
	}
	return in, nil
}

// jsonProblem describes a decoding error without Go type names.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("malformed JSON at byte %d", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("wrong type at %q", typ.Field)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	default:
		return "malformed JSON"
	}
}

func parsePoolCSV(body []byte) ([]ProfileInput, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the CSV must start with the header iccid,smdp_address,matching_id")
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	if len(header) != len(PoolColumns) || slices.ContainsFunc(PoolColumns, func(n string) bool { _, ok := col[n]; return !ok }) {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the CSV header must be exactly iccid,smdp_address,matching_id")
	}
	in := []ProfileInput{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if pe, ok := errors.AsType[*csv.ParseError](err); ok {
				return nil, skygate.Errorf(skygate.CodeBadRequest, "the CSV is malformed at line %d: %v", pe.Line, pe.Err)
			}
			return nil, skygate.Errorf(skygate.CodeBadRequest, "the CSV is malformed")
		}
		line, _ := r.FieldPos(0)
		p := ProfileInput{ICCID: rec[col["iccid"]], SMDPAddress: rec[col["smdp_address"]], MatchingID: rec[col["matching_id"]], Line: line}
		trim(&p)
		in = append(in, p)
	}
	return in, nil
}

func trim(p *ProfileInput) {
	p.ICCID, p.SMDPAddress, p.MatchingID = strings.TrimSpace(p.ICCID), strings.TrimSpace(p.SMDPAddress), strings.TrimSpace(p.MatchingID)
}

// ImportPool adds profiles to the account's pool (admin), all or nothing: every
// profile is checked (ICCID 19–20 digits with a valid Luhn digit, SM-DP+ address a host
// name, matching ID 1–255 of A–Z, a–z, 0–9 and "-"), and ICCIDs repeated in the upload
// or already in any account's pool are refused; any problem is CodeValidation listing
// the fields as "[i].iccid" (i counts profiles from 0; for CSV the message names the
// line) and nothing is imported. Matching IDs are sealed before they reach the store.
// An unknown account is CodeNotFound. The audit record (required) is committed
// with the import.
func (s *Service) ImportPool(ctx context.Context, accountID string, in []ProfileInput, audit *skygate.AuditEvent) (*ImportResult, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	var problems []skygate.FieldError
	if len(in) == 0 || len(in) > MaxPoolUpload {
		problems = append(problems, skygate.FieldError{Field: "", Message: fmt.Sprintf("must hold 1 to %d profiles", MaxPoolUpload)})
	}
	for i, p := range in {
		bad := func(field, msg string) {
			if p.Line > 0 {
				msg = fmt.Sprintf("line %d: %s", p.Line, msg)
			}
			problems = append(problems, skygate.FieldError{Field: fmt.Sprintf("[%d].%s", i, field), Message: msg})
		}
		if !skygate.IsICCID(p.ICCID) {
			bad("iccid", "must be 19 or 20 digits ending in a valid Luhn check digit")
		}
		if !skygate.IsSMDPAddress(p.SMDPAddress) {
			bad("smdp_address", "must be the SM-DP+ host name, such as smdp.example.com")
		}
		if !skygate.IsMatchingID(p.MatchingID) {
			bad("matching_id", "must be 1 to 255 letters, digits and hyphens")
		}
	}
	if problems != nil {
		return nil, capped(problems)
	}
	now := s.now()
	profiles := make([]*skygate.PoolProfile, len(in))
	for i, p := range in {
		profiles[i] = &skygate.PoolProfile{
			ICCID: p.ICCID, AccountID: accountID, SMDPAddress: p.SMDPAddress,
			MatchingIDSealed: s.sealer.Seal([]byte(p.MatchingID), associatedData(p.ICCID)), Status: skygate.PoolAvailable, ImportedAt: now,
		}
	}
	if err := s.store.ImportPoolProfiles(ctx, accountID, profiles, audit); err != nil {
		if e, ok := errors.AsType[*skygate.Error](err); ok && e.Code == skygate.CodeValidation {
			for i := range e.Fields {
				e.Fields[i].Message = withLine(in, e.Fields[i])
			}
			return nil, capped(e.Fields)
		}
		return nil, err
	}
	counts, err := s.store.PoolCounts(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return &ImportResult{Imported: len(profiles), Pool: counts}, nil
}

// withLine prefixes the store's message about "[i].iccid" with the CSV line of i.
func withLine(in []ProfileInput, f skygate.FieldError) string {
	var i int
	if _, err := fmt.Sscanf(f.Field, "[%d]", &i); err == nil && i >= 0 && i < len(in) && in[i].Line > 0 {
		return fmt.Sprintf("line %d: %s", in[i].Line, f.Message)
	}
	return f.Message
}

// capped is the validation error of problems with at most maxReported fields.
func capped(problems []skygate.FieldError) error {
	if len(problems) > maxReported {
		n := len(problems) - maxReported
		problems = append(slices.Clip(problems[:maxReported]), skygate.FieldError{Field: "", Message: fmt.Sprintf("and %d more problems", n)})
	}
	return skygate.ValidationError(problems...)
}

// PoolCounts returns the account's pool profiles counted by status (admin), or
// CodeNotFound for an unknown account.
func (s *Service) PoolCounts(ctx context.Context, accountID string) (*skygate.PoolCounts, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	return s.store.PoolCounts(ctx, accountID)
}
