// Package lifecycle runs the service's background work: each part is a Service whose
// Run works until its context ends, and Run starts the parts together and stops them
// together, as River's startstop and an errgroup do. Every turns periodic work into a
// Service, so that no package owns a ticker loop of its own.
package lifecycle
