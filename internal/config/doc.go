// Package config turns the SKYGATE_* environment variables into a Config. Load reports
// every problem at once. Only development enables development conveniences (dev PKI,
// dev identity provider, a generated master key) by default; sandbox takes the first
// two only when enabled explicitly, and production refuses them and weak settings.
package config
