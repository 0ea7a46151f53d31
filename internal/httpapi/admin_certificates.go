package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/clientca"
)

// Partners' own client certificates (POST /api/v1/admin/applications/{id}/certificates).
// Where the service holds the client CA's key it signs the partner's CSR; where the key
// is kept elsewhere the operator signs it and the certificate is bound instead. Either
// way the application is bound to the certificate (client_cert_sha256) in the audited
// write, and the binding applies at once here and within a second on other replicas.

// certificateRequest carries exactly one of its fields.
type certificateRequest struct {
	CSR         string `json:"csr"`
	Certificate string `json:"certificate"`
}

// validate checks what can be checked without the application: one field, and a CSR
// only where the service can sign it.
func (req certificateRequest) validate(ca *clientca.Authority) error {
	csr, cert := strings.TrimSpace(req.CSR) != "", strings.TrimSpace(req.Certificate) != ""
	field := "certificate"
	if csr {
		field = "csr"
	}
	switch {
	case csr == cert:
		const msg = "send exactly one of csr (a PKCS#10 request for this service to sign) and certificate (a certificate your client CA signed)"
		return skygate.ValidationError(skygate.FieldError{Field: "csr", Message: msg}, skygate.FieldError{Field: "certificate", Message: msg})
	case ca == nil:
		return skygate.ValidationError(skygate.FieldError{Field: field, Message: "this service has no client CA configured"})
	case csr && !ca.CanIssue():
		return skygate.ValidationError(skygate.FieldError{Field: "csr",
			Message: "this service does not hold the client CA's key: sign the CSR with your CA and send the signed certificate as certificate"})
	}
	return nil
}

// applicationCertificate is the answer: the certificate and the binding.
type applicationCertificate struct {
	Certificate string `json:"certificate"`
	// SHA256 is the hex SHA-256 of the DER; ClientCertSHA256 the same digest as the
	// application's binding spells it (x5t#S256).
	SHA256           string               `json:"sha256"`
	ClientCertSHA256 string               `json:"client_cert_sha256"`
	Serial           string               `json:"serial"`
	Subject          string               `json:"subject"`
	Issuer           string               `json:"issuer"`
	NotBefore        time.Time            `json:"not_before"`
	NotAfter         time.Time            `json:"not_after"`
	Application      *skygate.Application `json:"application"`
}

// certificateAudit are the audit record's details: which certificate, never a key.
type certificateAudit struct {
	Serial   string    `json:"serial"`
	SHA256   string    `json:"sha256"`
	NotAfter time.Time `json:"not_after"`
	Subject  string    `json:"subject"`
	Issuer   string    `json:"issuer"`
}

func newApplicationCertificate(cert *x509.Certificate) *applicationCertificate {
	sum := sha256.Sum256(cert.Raw)
	return &applicationCertificate{
		Certificate:      string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})),
		SHA256:           hex.EncodeToString(sum[:]),
		ClientCertSHA256: CertThumbprint(cert),
		Serial:           fmt.Sprintf("%x", cert.SerialNumber),
		Subject:          cert.Subject.String(),
		Issuer:           cert.Issuer.String(),
		NotBefore:        cert.NotBefore.UTC(),
		NotAfter:         cert.NotAfter.UTC(),
	}
}

// createApplicationCertificate issues a certificate from the partner's CSR
// (application.certificate.issue) or checks one signed elsewhere
// (application.certificate.bind), and binds the application to it.
func (s *Server) createApplicationCertificate(w http.ResponseWriter, r *http.Request) error {
	var req certificateRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	ca := s.deps.ClientCerts.Authority
	if err := req.validate(ca); err != nil {
		return err
	}
	app, err := s.deps.Store.ApplicationAdmin(r.Context(), r.PathValue("applicationID"))
	if err != nil {
		return err
	}
	now := s.now()
	action, field := "application.certificate.bind", "certificate"
	var cert *x509.Certificate
	if strings.TrimSpace(req.CSR) != "" {
		action, field = "application.certificate.issue", "csr"
		cert, err = ca.Issue([]byte(req.CSR), app.ClientID, now)
	} else {
		cert, err = ca.Check([]byte(req.Certificate), now)
	}
	var input *clientca.InputError
	if errors.As(err, &input) {
		return skygate.ValidationError(skygate.FieldError{Field: field, Message: input.Message})
	} else if err != nil {
		return err
	}
	out := newApplicationCertificate(cert)
	rec := auditRecord{action, appType, app.ID, app.AccountID, certificateAudit{
		Serial: out.Serial, SHA256: out.SHA256, NotAfter: out.NotAfter, Subject: out.Subject, Issuer: out.Issuer,
	}}
	err = s.audited(w, r, rec, func(ctx context.Context) (err error) {
		app, err = s.deps.Store.SetApplicationCertificate(ctx, app.AccountID, app.ID, out.ClientCertSHA256, now)
		return err
	})
	if err != nil {
		return err
	}
	s.deps.Applications.Forget(app.ClientID)
	out.Application = app
	return writeJSON(w, http.StatusCreated, out)
}
