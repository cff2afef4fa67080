//go:build !linux

package memory

// Resident is 0: only Linux's /proc is read.
func Resident() int64 { return 0 }

// Total is 0: only Linux's /proc is read.
func Total() int64 { return 0 }
