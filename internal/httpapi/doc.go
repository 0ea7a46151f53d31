// Package httpapi is the HTTP face of Skygate: NewServer builds one http.Handler with
// every route (routes.go), the middleware chain (request id, logging, metrics, panic
// recovery, authentication) and the single place where errors become RFC 9457
// problem+json responses (problem.go). Handlers return errors; they never write error
// bodies themselves, with one exception: the hosted eSIM install page
// (installpage.go), which is HTML for a traveller's browser, answers its 404 and 429 as
// localized HTML pages too.
package httpapi
