package esim_test

import (
	"strconv"
	"testing"

	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// BenchmarkOrder measures one order of one eSIM end to end through the service: key
// lookup, validation, the allocation transaction (key, debit, pool, order, eSIM,
// ledger, event) and decrypting the activation code. The pool and balance are sized
// for b.N orders up front. Run with -benchtime=2000x or so: every iteration consumes a
// profile.
func BenchmarkOrder(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s := e.open(b)
			bd := setup(b, s, 0, int64(b.N)*500)
			for start := 0; start < b.N; start += esim.MaxPoolUpload {
				MustImport(b, bd.svc, bd.acc.ID, NewProfiles(min(esim.MaxPoolUpload, b.N-start)))
			}
			req := esim.OrderRequest{PackageID: bd.pkg.ID, Quantity: 1}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, _, err := bd.svc.Order(b.Context(), esim.OrderCommand{AccountID: bd.acc.ID, ClientID: "c", IdempotencyKey: "bench-" + strconv.Itoa(i), Lang: "en", OrderRequest: req}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOrderParallel is BenchmarkOrder with concurrent callers of one account, the
// worst case: they serialise on the account's balance row.
func BenchmarkOrderParallel(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			s := e.open(b)
			bd := setup(b, s, 0, int64(b.N)*500)
			for start := 0; start < b.N; start += esim.MaxPoolUpload {
				MustImport(b, bd.svc, bd.acc.ID, NewProfiles(min(esim.MaxPoolUpload, b.N-start)))
			}
			req := esim.OrderRequest{PackageID: bd.pkg.ID, Quantity: 1}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := bd.svc.Order(b.Context(), esim.OrderCommand{AccountID: bd.acc.ID, ClientID: "c", IdempotencyKey: "bench-" + storetest.NewID(), Lang: "en", OrderRequest: req}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
