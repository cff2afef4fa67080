package pyreplay_test

import (
	"flag"

	"swapcheck/internal/testenv"
)

// The replays run real Python threads, seconds each: by default every
// test replays few runs and seeds, and SWAPCHECK_LONG=1 replays the counts
// docs/replay.md states.

// sized is long with SWAPCHECK_LONG=1, short by default.
func sized(long, short int) int {
	if testenv.Long() {
		return long
	}
	return short
}

// seedsFlag is the count of the -pyreplay.* flag name (value holds it):
// the flag's value when it is given on the command line or under
// SWAPCHECK_LONG=1 (its default then), short otherwise.
func seedsFlag(value *int, name string, short int) int {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	if given || testenv.Long() {
		return *value
	}
	return short
}
