package worldtest_test

import "testing"

// sequentialOnly skips a test that walks programs on one goroutine under
// the race detector: there is nothing for it to find, and those walks
// made the package take some 590 s of CI's go test -race ./... (about
// 120 s without the detector). The plain go test ./... runs them.
func sequentialOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("one goroutine: run without the race detector")
	}
}
