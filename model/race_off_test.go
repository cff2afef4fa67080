//go:build !race

package model_test

// raceDetector says whether the tests run under the race detector, which
// makes a walk some ten times slower.
const raceDetector = false
