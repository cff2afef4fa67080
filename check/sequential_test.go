package check_test

import "testing"

// sequentialOnly skips a test that runs every search on one goroutine
// under the race detector: there is nothing for it to find, and it makes
// those searches some ten times slower (check's heaviest sequential tests
// took the package past go test's 10-minute timeout under -race). The
// plain go test ./... runs them.
func sequentialOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("one goroutine: run without the race detector")
	}
}
