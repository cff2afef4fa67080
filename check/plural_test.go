package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "execution", "1 execution"},
		{0, "execution", "0 executions"},
		{2, "launch", "2 launches"},
		{1, "launch", "1 launch"},
		{3, "block", "3 blocks"},
		{2, "pass", "2 passes"},
	} {
		require.Equal(t, tc.want, check.Count(tc.n, tc.noun))
	}
}
