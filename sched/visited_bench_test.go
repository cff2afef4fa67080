package sched

import (
	"testing"
)

// BenchmarkRehashWords copies a table of 2^21 words, 11/16 full (as full as
// a table gets before it grows), into one twice as large: ns/op over the
// keys copied. A table larger than the caches, as the 5-thread search's
// last grows are, so the copy's writes miss.
func BenchmarkRehashWords(b *testing.B) {
	for _, alone := range []bool{true, false} {
		name := "users=2"
		if alone {
			name = "users=1"
		}
		b.Run(name, func(b *testing.B) {
			users := 2
			if alone {
				users = 1
			}
			s := newVisitedSet(users)
			defer s.free()
			old := s.newTable(1<<21, users, true)
			keys := int(old.limit)
			for i := range keys {
				x := uint64(i)*0x9e3779b97f4a7c15 | 1
				old.addWord(s.hashWord(x), x)
			}
			for b.Loop() {
				b.StopTimer()
				g := s.newTable(1<<22, users, true)
				j := &rehash{set: s, old: old, new: g}
				j.parts = int64((old.len() + rehashPart - 1) / rehashPart)
				for i := 0; i < len(g.words); i += 512 { // fault the pages in first, as grow does
					g.words[i].Store(0)
				}
				b.StartTimer()
				j.work()
				b.StopTimer()
				releaseSlab(s.slabs, g.words)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(keys), "ns/key")
		})
	}
}
