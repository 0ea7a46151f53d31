package identity

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/clientca"
)

// Partners' own client certificates. Where the service holds the client CA's key it
// signs the partner's CSR; where the key is kept elsewhere the operator signs it and
// the certificate is bound instead. Either way the application is bound to the
// certificate (client_cert_sha256) in the audited write.

// CertificateRequest carries exactly one of CSR and Certificate. Its JSON form is the
// admin API's request body.
type CertificateRequest struct {
	ApplicationID string `json:"-"`
	// CSR is a PKCS#10 request (PEM) for the service to sign.
	CSR string `json:"csr"`
	// Certificate is a certificate (PEM) that the client CA signed elsewhere.
	Certificate string `json:"certificate"`
}

// validate checks what can be checked without the application: one field, and a CSR
// only where the service can sign it.
func (c CertificateRequest) validate(ca *clientca.Authority) error {
	csr, cert := strings.TrimSpace(c.CSR) != "", strings.TrimSpace(c.Certificate) != ""
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

// Certificate is a client certificate and the application bound to it.
type Certificate struct {
	// Certificate is the PEM.
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

func newCertificate(cert *x509.Certificate) *Certificate {
	sum := sha256.Sum256(cert.Raw)
	return &Certificate{
		Certificate:      string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})),
		SHA256:           hex.EncodeToString(sum[:]),
		ClientCertSHA256: base64.RawURLEncoding.EncodeToString(sum[:]),
		Serial:           fmt.Sprintf("%x", cert.SerialNumber),
		Subject:          cert.Subject.String(),
		Issuer:           cert.Issuer.String(),
		NotBefore:        cert.NotBefore.UTC(),
		NotAfter:         cert.NotAfter.UTC(),
	}
}

// certificateAudit are the audit record's details: which certificate, never a key.
type certificateAudit struct {
	Serial   string    `json:"serial"`
	SHA256   string    `json:"sha256"`
	NotAfter time.Time `json:"not_after"`
	Subject  string    `json:"subject"`
	Issuer   string    `json:"issuer"`
}

// AddCertificate issues a certificate from the partner's CSR
// (application.certificate.issue) or checks one the client CA signed elsewhere
// (application.certificate.bind), and binds any account's application to it,
// replacing an earlier binding. A request the CA refuses is CodeValidation naming csr
// or certificate; an unknown application CodeNotFound.
func (s *Service) AddCertificate(ctx context.Context, by skygate.Actor, c CertificateRequest) (*Certificate, error) {
	if err := c.validate(s.ca); err != nil {
		return nil, err
	}
	app, err := s.store.ApplicationAdmin(ctx, c.ApplicationID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	action, field := "application.certificate.bind", "certificate"
	var cert *x509.Certificate
	if strings.TrimSpace(c.CSR) != "" {
		action, field = "application.certificate.issue", "csr"
		cert, err = s.ca.Issue([]byte(c.CSR), app.ClientID, now)
	} else {
		cert, err = s.ca.Check([]byte(c.Certificate), now)
	}
	if input, ok := errors.AsType[*clientca.InputError](err); ok {
		return nil, skygate.ValidationError(skygate.FieldError{Field: field, Message: input.Message})
	} else if err != nil {
		return nil, err
	}
	out := newCertificate(cert)
	audit, err := by.Audit(now, action, applicationType, app.ID, app.AccountID, certificateAudit{
		Serial: out.Serial, SHA256: out.SHA256, NotAfter: out.NotAfter, Subject: out.Subject, Issuer: out.Issuer,
	})
	if err != nil {
		return nil, err
	}
	if out.Application, err = s.store.SetApplicationCertificate(ctx, app.AccountID, app.ID, out.ClientCertSHA256, now, audit); err != nil {
		return nil, err
	}
	return out, nil
}
