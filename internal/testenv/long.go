package testenv

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// Variable is the environment variable that asks for the long suites.
const Variable = "SWAPCHECK_LONG"

var long = sync.OnceValue(func() bool {
	v := os.Getenv(Variable)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		// a typo must not quietly run the short suites in CI
		fmt.Fprintf(os.Stderr, "%s=%q: want 1 (run the long suites) or 0\n", Variable, v)
		os.Exit(2)
	}
	return on
})

// Long reports whether SWAPCHECK_LONG=1 asks for the long suites. A
// value that is not a boolean (strconv.ParseBool) ends the test binary
// with one line on stderr and exit status 2.
func Long() bool { return long() }
