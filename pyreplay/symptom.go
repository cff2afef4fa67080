package pyreplay

import (
	"fmt"

	"swapcheck/scenario"
)

// A launch's fake module holds the launch's grid, block and dynamic
// shared memory (FakeCUDAModule(grid_dim, block_dim, dynshared_size)); a
// thread that runs with another launch's fake (use-saw-other-fake) reads
// the other launch's. Every launch of a scenario has the same grid and
// block, so that a user sees the wrong fake, the user code and the replay
// give each launch its own amount of dynamic shared memory (launch k
// passes k int32, kernel[blocks, threads, 0, 4*k]) and print, after each
// use of cuda, how much the thread's cuda module holds: a thread of
// launch 2 with launch 1's fake prints launch 1's amount. The printed
// line is not a step of the model: it reads the cuda the use just read,
// in the same turn. Regression tests (EmitTest) do not print it.
//
// A block's threads share each cuda.shared.array; when two of them both
// miss FakeCUDAShared's allocation (shared-not-shared), each keeps its
// own. After each cuda.shared.array the code prints which array the
// thread got (its id): threads of one block that print different ones
// did not share it.

// symptomatic reports whether the scenario's code prints the symptom:
// several launches of one host that makes no device call itself (a
// second host's launches may run inline with the first's fake, and the
// host has no thread index to print), and no arrays of the kernel's
// (whose judge counts every shared.array call).
func symptomatic(sc *scenario.Scenario) bool {
	if sc.Launches < 2 || sc.NumHosts() != 1 || sc.HasMemory() {
		return false
	}
	for _, hs := range sc.HostProgram() {
		if hs.Kind == scenario.HostCall {
			return false
		}
	}
	return true
}

// dynsharedInts is the int32 launch k (from 1) passes as dynamic shared
// memory.
func dynsharedInts(k int) int { return k }

// launchConfig is the k-th launch's configuration (from 1), as its
// subscript writes it.
func launchConfig(sc *scenario.Scenario, k int) string {
	if !symptomatic(sc) {
		return fmt.Sprintf("%d, %d", sc.Blocks, sc.Threads)
	}
	return fmt.Sprintf("%d, %d, 0, %d", sc.Blocks, sc.Threads, 4*dynsharedInts(k))
}

// sharedLine is the print after cuda.shared.array (name: the module's
// name for cuda, target: the array's).
func sharedLine(name, target string) string {
	return fmt.Sprintf(`print("kernel: block", %[1]s.blockIdx.x, "thread", %[1]s.threadIdx.x, "got the shared array %[2]s at", hex(id(%[2]s)))`, name, target)
}

// symptomLine is the print after a use of cuda (name: the module's name
// for it) in function fn: the thread's index and the dynamic shared
// memory of the launch whose fake its cuda is.
func symptomLine(fn, name string) string {
	return fmt.Sprintf(`print("%[1]s: block", %[2]s.blockIdx.x, "thread", %[2]s.threadIdx.x, "sees", len(%[2]s.shared.array(0, numba.int32)), "int32 of dynamic shared memory")`, fn, name)
}

// launchLine is the print before the k-th launch (from 1) that says what
// it passes.
func launchLine(k int) string {
	return fmt.Sprintf(`print("launch %d passes %d int32 of dynamic shared memory")`, k, dynsharedInts(k))
}

// Symptom says, for a bug report, what the scenario's code prints to show
// which launch's fake a thread ran with, or which shared array it got (""
// when it prints nothing).
func Symptom(sc *scenario.Scenario) string {
	if sc.SharedSites() > 0 {
		return "After each `cuda.shared.array` the kernel prints which array the thread got (its address): the threads of a block share the array, so they print one address; threads that print two did not share it. The replay below prints the same lines."
	}
	if !symptomatic(sc) {
		return ""
	}
	return "Every launch has the same grid and block, so `main.py` gives each its own dynamic shared memory (launch k passes k int32), and after each use of `cuda` the code prints how much its `cuda` holds: a thread that runs with another launch's fake module prints that launch's amount, not its own launch's. The replay below prints the same lines, then which launch's fake each use saw."
}
