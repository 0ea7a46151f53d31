package skygate

import (
	"context"
	"time"
)

// CatalogDocument is the whole airport catalog as one JSON document (the format of
// internal/catalog/seed/catalog.json, skygate.CatalogData). The catalog is shared by
// every account; Version increases with every replacement so that replicas and ETags
// notice a change.
type CatalogDocument struct {
	Data      []byte
	Version   int64
	UpdatedAt time.Time
}

// CatalogStore keeps the current catalog document.
type CatalogStore interface {
	// Catalog returns the current document, or CodeNotFound when none was stored yet.
	Catalog(ctx context.Context) (*CatalogDocument, error)
	// CatalogVersion returns the current document's version without its data, or
	// CodeNotFound when none was stored yet: replicas poll it to learn of a new
	// document.
	CatalogVersion(ctx context.Context) (int64, error)
	// ReplaceCatalog stores data as the new current document with the next version and
	// returns it.
	ReplaceCatalog(ctx context.Context, data []byte, now time.Time) (*CatalogDocument, error)
}

// Store is everything the service keeps. internal/sqlite and internal/postgres implement
// it and both pass internal/storetest.
type Store interface {
	Pinger
	AccountStore
	ApplicationStore
	ClientKeyStore
	ApplicationUpdater
	KeyStore
	CatalogStore
	AuditStore
	BookingStore
	QuoteStore
	PriceStore
	CapacityStore
	SlotStore
	WebhookStore
	EventFeedStore
	ESIMStore
	ESIMCancelStore
	ESIMHistoryStore
	ESIMSettingsStore
	ESIMWarningStore
	BillingStore
	LoginCodeStore
	TokenRevocationStore
	// Close releases the connections.
	Close() error
}
