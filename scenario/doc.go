// Package scenario is the language in which a user says what launch to
// check: the modules and their globals bound to the real cuda module, the
// device functions and the kernel's body (statements: use, call,
// syncthreads, raise, branches on the thread index, repeats), the host's
// program, the launch shape, the faults to explore, and the bounds on all
// of them. It knows nothing of Python's execution or of the search: package
// model compiles a Scenario into a program to run.
//
// # What a caller does
//
//  1. Make a Scenario: Shape.Build from the command line's numbers, or
//     Parse a scenario file (testdata/scenarios/README.md is its manual).
//  2. Validate it when it was built by hand (Build and Parse validate).
//  3. Hand it to model.NewProgram; String renders it back, canonically,
//     in the file format.
//
// The fault kinds (faults.go) are one registry, FaultKinds: -faults, the
// file's "faults" directive, -list and the docs read it.
package scenario
