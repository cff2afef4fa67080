// Package testenv is what every package's tests read to size themselves:
// one switch, the environment variable SWAPCHECK_LONG, shared by the whole
// module so that all suites agree and CI sets it once.
//
// By default (SWAPCHECK_LONG unset or 0) go test ./... runs every suite at
// a smaller size, so that it finishes within three minutes on a quiet
// two-core machine: a test over a cross product (scenario x variant x
// atomicity mode, ...) runs a deterministic sample of it in which every
// value of every dimension appears (Rotate), a test that counts runs or
// seeds runs fewer, and a test too heavy to sample has a cheaper twin
// that checks the same property on a smaller world. No assertion is
// weaker by default: only the set of worlds it is asked of is smaller.
//
// SWAPCHECK_LONG=1 runs the long suites: every cross product whole, the
// full counts of runs and seeds, and the heavy tests that the default
// leaves to their twins. .ci/run sets it for go test ./..., and runs go
// test -race ./... at the default size (the long worlds run the same
// code through the same goroutines).
//
// A test file does, in order:
//
//  1. import swapcheck/internal/testenv (test files only: no package of
//     the program imports it);
//  2. ask Long() where a size or a count is chosen, or range over
//     Rotate(i, n) in the inner loops of a cross product, and say in the
//     test's doc what the default samples and what the long run adds.
package testenv
