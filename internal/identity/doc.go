// Package identity owns accounts, their applications and the applications' secrets and
// client certificates: the admin API's writes (internal/httpapi), `skygate bootstrap`
// and the demo account of non-production starts (cmd/skygate) all go through its
// Service, so that they validate alike and audit alike.
//
// Every write takes the skygate.Actor that makes it and commits its audit record in the
// write's own transaction (the store's audit argument): an employee's sub through the
// admin API, skygate.ActorBootstrap for the command line, skygate.ActorSystem for the
// demo account. The actions are "account.create", "account.update",
// "application.create", "application.delete", "application.rotate_secret",
// "application.certificate.issue" and "application.certificate.bind".
//
// Uniqueness comes from the store: one account per name (a constraint) and, for
// Bootstrap, one first application per account (skygate.ApplicationStore's
// CreateFirstApplication), so concurrent bootstraps of one name make one account and
// one application.
//
// The service holds no state of its own and is safe for concurrent use. Caches of
// applications and account statuses belong to the callers that keep them.
package identity
