// Package ratelimit decides whether a request may proceed, per key (an account, a
// client, an address), with the generic cell rate algorithm (GCRA): a sustained rate
// and a burst. Memory keeps state in the process; Redis shares it between replicas.
package ratelimit
