// Package config turns the SKYGATE_* environment variables into a Config. Load reports
// every problem at once, and production refuses development conveniences (dev PKI, dev
// identity provider, a generated master key).
package config
