package sched

import "unsafe"

// prefetch asks the processor to bring the cache line at addr in, without
// waiting for it (PREFETCHT0): a depth-first search steps all of a
// state's children first, then looks their keys up, so the lookups' cache
// misses overlap instead of following one another.
//
//go:noescape
func prefetch(addr unsafe.Pointer)
