package stress_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a run starts has exited when Run returns: no test may
// leave one behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
