// Package client is the Go client of Skygate for partners.
//
// The typed API is package [github.com/skygate/skygate/client/api], generated with
// oapi-codegen from the partner view of the contract (openapi.json here, also served at
// /openapi/partner.json); its ClientWithResponses has one method per operation. This
// package adds what the contract cannot generate: [New] sets up one api client per
// listener, with OAuth 2.0 client-credentials tokens fetched and renewed as needed and,
// for the mutual-TLS listener (booking), the partner's client certificate; and
// [VerifyWebhook] checks the Standard Webhooks signature of a delivery.
//
// examples/quickstart books a fast-track end to end with it.
package client
