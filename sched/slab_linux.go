package sched

import "syscall"

// mapSlots maps size bytes of a table outside the Go heap, asking the kernel for huge
// pages (madvise MADV_HUGEPAGE; transparent huge pages in "madvise" mode,
// Debian's default, give them only to those who ask). A search's visited
// table is read at random, so with 4 KiB pages nearly every lookup in a
// large table also misses the TLB, so it asks for 2 MiB pages: tuned with
// BenchmarkExhaustiveMerged5, about 13% faster with them; see
// docs/performance.md. It returns nil when the mapping fails, and the
// caller allocates on the heap instead.
func mapSlots(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	// Without transparent huge pages in the kernel this fails; the
	// table then has small pages and works the same.
	_ = syscall.Madvise(b, madvHugepage)
	return b
}

// madvHugepage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugepage = 14

// unmapSlots returns a mapping of mapSlots.
func unmapSlots(b []byte) { _ = syscall.Munmap(b) }
