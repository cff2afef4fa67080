// Package pyfind finds the machine's CPythons for the tests of the
// packages that compile Python (pyvm, source): once per test binary, and
// each to be run as its sys.executable. A pyenv shim that found one
// (3.11's python3 here) runs that same interpreter after a bash script of
// about half a second a start, which the tests' many compilations need
// not pay. Imported by tests only (layers_test.go).
package pyfind

import (
	"os"
	"sync"

	"swapcheck/pysource"
)

var (
	once  sync.Once
	found []pysource.Interpreter
)

// Interpreters are the machine's CPythons (pysource.Candidates), each
// with Path its sys.executable where that exists; the caller must not
// change the slice.
func Interpreters() []pysource.Interpreter {
	once.Do(func() {
		found, _ = pysource.Candidates(pysource.OSEnv())
		for i, in := range found {
			if in.Executable == "" {
				continue
			}
			if _, err := os.Stat(in.Executable); err == nil {
				found[i].Path = in.Executable
			}
		}
	})
	return found
}
