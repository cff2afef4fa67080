//go:build !race

package worldtest_test

// raceDetector says whether the tests run under the race detector, which
// makes a walk some ten times slower.
const raceDetector = false
