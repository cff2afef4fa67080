//go:build !amd64

package sched

import "unsafe"

// prefetch does nothing here (see prefetch_amd64.go).
func prefetch(addr unsafe.Pointer) {}
