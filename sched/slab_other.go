//go:build !linux

package sched

// mapSlots maps slots outside the heap where the platform has huge pages
// (see slab_linux.go); elsewhere the table lives on the heap.
func mapSlots(size int) []byte { return nil }

func unmapSlots(b []byte) {}
