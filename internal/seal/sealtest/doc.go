// Package sealtest gives tests the sealer of a store of their own, derived as the
// server derives the stores' sealer from its master key.
package sealtest
