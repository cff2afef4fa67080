//go:build !race

package sched_test

// raceDetector says whether the tests run under the race detector, which
// makes a search some ten times slower.
const raceDetector = false
