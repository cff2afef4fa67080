package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
)

// TestEveryKindIsReportable: a bug report (package bugreport) says, for
// every violation kind, the invariant it breaks and what a user sees.
func TestEveryKindIsReportable(t *testing.T) {
	for _, kind := range check.Kinds {
		require.NotEmpty(t, check.KindInvariant[kind], "check.KindInvariant says nothing of %s", kind)
		require.NotEmpty(t, check.KindSeen[kind], "check.KindSeen says nothing of %s", kind)
	}
	require.Len(t, check.KindInvariant, len(check.Kinds), "check.KindInvariant holds a kind check.Kinds does not")
	require.Len(t, check.KindSeen, len(check.Kinds), "check.KindSeen holds a kind check.Kinds does not")
}
