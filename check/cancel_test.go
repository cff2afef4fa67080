package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

// The Cancel that Explore gives a search says yes when its Stop would
// (the caller's Stop, or the timeout), and there is none without either.
func TestCancelFollowsStopAndTimeout(t *testing.T) {
	now := time.Now()
	require.Nil(t, check.CancelFuncForTest(now, check.Config{}))

	stopped := false
	cancel := check.CancelFuncForTest(now, check.Config{Stop: func() bool { return stopped }})
	require.False(t, cancel())
	stopped = true
	require.True(t, cancel())

	require.False(t, check.CancelFuncForTest(now, check.Config{Timeout: time.Hour})())
	require.True(t, check.CancelFuncForTest(now.Add(-time.Hour), check.Config{Timeout: time.Minute})())
}
