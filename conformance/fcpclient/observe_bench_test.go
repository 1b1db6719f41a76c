package fcpclient

import (
	"context"
	"testing"
)

// BenchmarkObserve is the cost of the process observation (observe.go),
// side by side:
//
//	go test -run '^$' -bench Observe -benchtime 50x ./conformance/fcpclient/
//
// start-hello-close: a process started, greeted and closed, observed (a
// network namespace and a memory cgroup of its own) and unobserved (as in
// one-shot mode); network-read: reading the namespace's counters, which a
// no_network case does twice.
func BenchmarkObserve(b *testing.B) {
	ctx := context.Background()
	for _, unobserved := range []bool{false, true} {
		name := "start-hello-close/observed"
		if unobserved {
			name = "start-hello-close/unobserved"
		}
		b.Run(name, func(b *testing.B) {
			o := opts("echo-good")
			o.Unobserved = unobserved
			for range b.N {
				s, err := Start(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Hello(ctx); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("network-read", func(b *testing.B) {
		s, err := Start(ctx, opts("echo-good"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Network(); err != nil {
			b.Skip(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := s.Network(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
