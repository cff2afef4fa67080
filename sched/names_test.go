package sched_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// Every enum value has its name, and a value out of range (the zero value
// included) names its type and number.
func TestEnumNames(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{sched.Runnable, "runnable"}, {sched.Blocked, "blocked"}, {sched.Done, "done"},
		{sched.Status(0), "Status(0)"}, {sched.Status(4), "Status(4)"},
		{sched.Local, "local"}, {sched.Read, "read"}, {sched.Write, "write"},
		{sched.Access(0), "Access(0)"}, {sched.Access(9), "Access(9)"},
		{sched.Violation, "violation"}, {sched.Verified, "verified"},
		{sched.NoViolationFound, "no-violation-found"}, {sched.Incomplete, "incomplete"},
		{sched.Verdict(0), "Verdict(0)"}, {sched.Verdict(5), "Verdict(5)"},
	} {
		require.Equal(t, tc.want, tc.v.String())
	}
}
