package model_test

// These tests check, against the python3 on the machine, where CPython 3.11
// raises an asynchronous KeyboardInterrupt and where it hands the GIL to
// another thread in the code the model stands for: each variant's
// swapped_cuda_module, contextlib's @contextmanager machinery and the
// simulator's launch and polling code (testdata/cpython/launch.py). The
// observations come from ../testdata/cpython/switchpoints.py (see its doc
// for the method); docs/cpython-switch-points.md states the findings.
//
// What is judged here:
//   - the script's facts (controls that prove the probes are not vacuous);
//   - the static list from ceval.c against the observations: every
//     interrupt raised by a target frame's own check, and every thread
//     switch parked in a target frame, is at an instruction the static list
//     says can check the eval breaker (or, for a switch, calls out);
//   - the deterministic part (instructions, static classes, where each
//     interrupt lands) against testdata/cpython/switchpoints.golden.txt;
//     go test ./model -run SwitchPoints -switchpoints.update rewrites it.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/internal/testenv"
)

var updateSwitchPoints = flag.Bool("switchpoints.update", false,
	"rewrite testdata/cpython/switchpoints.golden.txt from the output of switchpoints.py")

const switchPointsGolden = "../testdata/cpython/switchpoints.golden.txt"

type spInstruction struct {
	Offset      int                 `json:"offset"`
	Opname      string              `json:"opname"`
	Arg         int                 `json:"arg"`
	Line        int                 `json:"line"`
	KernelLine  int                 `json:"kernel_line"`
	Static      string              `json:"static"`
	Specialized string              `json:"specialized,omitempty"`
	Interrupt   map[string][]string `json:"interrupt"`
	GIL         []string            `json:"gil,omitempty"`
}

type spFunction struct {
	Name         string          `json:"name"`
	File         string          `json:"file"`
	FirstLine    int             `json:"first_line"`
	Scenarios    []string        `json:"scenarios"`
	Instructions []spInstruction `json:"instructions"`
}

type spReport struct {
	Python     string          `json:"python"`
	Static     json.RawMessage `json:"static,omitempty"`
	Functions  []spFunction    `json:"functions"`
	Facts      []pyFact        `json:"facts"`
	GILSamples map[string]int  `json:"gil_samples,omitempty"`
}

// spLanding is one entry of an instruction's interrupt list,
// "scenario:offset/kind" or "scenario:outside/kind".
type spLanding struct {
	Scenario string
	Offset   int // -1: outside the function
	Kind     string
}

func parseLanding(t *testing.T, s string) spLanding {
	t.Helper()
	sc, rest, ok := strings.Cut(s, ":")
	require.True(t, ok, "landing %q", s)
	where, kind, ok := strings.Cut(rest, "/")
	require.True(t, ok, "landing %q", s)
	if where == "outside" {
		return spLanding{Scenario: sc, Offset: -1, Kind: kind}
	}
	off, err := strconv.Atoi(where)
	require.NoError(t, err, "landing %q", s)
	return spLanding{Scenario: sc, Offset: off, Kind: kind}
}

// runPythonOutput runs python3 with args, the environment's variables and
// env, and returns its stdout, or an error carrying its stderr.
func runPythonOutput(py string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(py, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("python3 %s: %w\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

var (
	spOnce sync.Once
	spOut  []byte
	spErr  error
)

// switchPoints runs switchpoints.py on python3 once per test binary (it
// takes tens of seconds; see runSwitchPoints) and returns its report.
func switchPoints(t *testing.T) spReport {
	t.Helper()
	py := testenv.Python3(t)
	spOnce.Do(func() { spOut, spErr = runSwitchPoints(py) })
	require.NoError(t, spErr)
	var rep spReport
	require.NoError(t, json.Unmarshal(spOut, &rep), "output of switchpoints.py:\n%s", spOut)
	require.True(t, strings.HasPrefix(rep.Python, "3.11."),
		"switchpoints.py states CPython 3.11's eval-breaker checks; python3 here is %s", rep.Python)
	return rep
}

func TestSwitchPointsFacts(t *testing.T) {
	rep := switchPoints(t)
	want := []string{
		"probe_lands_at_next_eval_breaker_check",
		"signals_only_in_main_thread",
		"uncontended_with_lock_acquires_then_interrupt_releases",
		"contended_acquire_interrupted_by_real_sigint",
		"gil_switch_only_at_checks_control",
		"interrupt_at_yield_defers_finally_to_the_exceptions_death",
	}
	got := map[string]bool{}
	for _, f := range rep.Facts {
		got[f.Name] = true
	}
	for _, name := range want {
		require.True(t, got[name], "fact %q missing from switchpoints.py's output", name)
	}
	for _, f := range rep.Facts {
		t.Run(f.Name, func(t *testing.T) {
			t.Log(f.Detail)
			require.True(t, f.Holds, "CPython fact %q does not hold on %s: %s", f.Name, rep.Python, f.Detail)
		})
	}
	t.Logf("GIL samples per scenario group: %v", rep.GILSamples)
}

// TestSwitchPointsStaticCoversObserved: the static list (ceval.c) is sound
// for what was observed. An interrupt raised by the target frame itself
// ("direct") lands only on a "breaker" instruction, or (warm code only) on a
// PRECALL that 3.11 specialized into a checking call; a thread found parked
// in a target frame is parked on an instruction that checks or calls out.
// Every function run in the main thread has at least one landing point.
func TestSwitchPointsStaticCoversObserved(t *testing.T) {
	rep := switchPoints(t)
	require.NotEmpty(t, rep.Functions)
	switches := 0
	for _, fn := range rep.Functions {
		t.Run(fn.Name, func(t *testing.T) {
			byOffset := map[int]spInstruction{}
			for _, ins := range fn.Instructions {
				byOffset[ins.Offset] = ins
			}
			landings := 0
			for _, ins := range fn.Instructions {
				for _, mode := range []string{"cold", "warm"} {
					for _, s := range ins.Interrupt[mode] {
						l := parseLanding(t, s)
						landings++
						if l.Kind != "direct" {
							continue
						}
						at, ok := byOffset[l.Offset]
						require.True(t, ok, "%s: landing %q at no instruction", fn.Name, s)
						okClass := at.Static == "breaker" || (mode == "warm" && at.Static == "precall")
						require.True(t, okClass,
							"%s (%s): interrupt set at %s@%d lands at %s@%d (line %d), which the static list says never checks the eval breaker",
							fn.Name, mode, ins.Opname, ins.Offset, at.Opname, at.Offset, at.Line)
					}
				}
				for _, g := range ins.GIL {
					switches++
					if strings.HasPrefix(g, "direct:") {
						require.NotEmpty(t, ins.Static,
							"%s: a thread was parked at %s@%d (line %d), which neither checks the eval breaker nor calls out",
							fn.Name, ins.Opname, ins.Offset, ins.Line)
					}
				}
			}
			if len(fn.Scenarios) > 0 {
				require.Positive(t, landings, "%s: no interrupt was observed at all (vacuous probe?)", fn.Name)
			}
		})
	}
	require.Positive(t, switches, "no thread switch was observed in any target function")
}

// TestSwitchPointsMerged pins the lines of testdata/python/merged.py at which
// an interrupt can land in swapped_cuda_module (raised by the line's own
// check, or inside a callee of the line), and lines where it cannot. The
// model's interrupt points for merged must be exactly these.
func TestSwitchPointsMerged(t *testing.T) {
	rep := switchPoints(t)
	fn := findSPFunction(t, rep, "merged.swapped_cuda_module")
	lines := landingLines(t, fn)
	require.Equal(t, []string{
		"11 RESUME direct",        // generator start (first next() from __enter__)
		"16 CALL direct",          // after id(fn_globs)
		"21 CALL direct",          // leaving `with _locks_register_lock` (its __exit__ call)
		"24 CALL direct",          // leaving `with lock` after the increment
		"27 CALL callee",          // inside the dict comprehension (its RESUME / loop)
		"27 CALL direct",          // after fn_globs.items()
		"30 JUMP_BACKWARD direct", // each iteration of `for k in orig`
		"35 RESUME direct",        // resumption after yield (inside try)
		"37 CALL direct",          // leaving the exit's `with lock`
		"43 CALL direct",          // after _swap_orig.pop / after fn_globs.update
		"outside",                 // after the last check: in the caller
	}, lines)

	// Between the start of `with lock:` (line 24) and its exit call nothing
	// checks except the items() call, the comprehension and the loop's
	// backward jump: the increment (line 33) and the swap's store (line 30)
	// are never separated from what follows them by an interrupt.
	for _, ins := range fn.Instructions {
		for _, mode := range []string{"cold", "warm"} {
			for _, s := range ins.Interrupt[mode] {
				l := parseLanding(t, s)
				if l.Offset < 0 {
					continue
				}
				at := instructionAt(t, fn, l.Offset)
				require.NotContains(t, []int{26, 28, 33, 39, 42, 44}, at.Line,
					"merged.py:%d (%s@%d) took an interrupt", at.Line, at.Opname, at.Offset)
			}
		}
	}

	// After the `with lock:` block is left (its __exit__ call, line 24) the
	// generator runs no check before it yields: an interrupt pending there
	// is raised outside swapped_cuda_module, by __enter__'s own code after
	// next() returned, so the caller's `with` never starts and the
	// generator's finally never runs.
	for _, ins := range fn.Instructions {
		if ins.Line == 35 && ins.Opname == "YIELD_VALUE" {
			for _, mode := range []string{"cold", "warm"} {
				for _, s := range ins.Interrupt[mode] {
					require.Equal(t, -1, parseLanding(t, s).Offset,
						"interrupt set at the yield (%s) should land outside the generator, got %s", mode, s)
				}
			}
		}
	}
}

func findSPFunction(t *testing.T, rep spReport, name string) spFunction {
	t.Helper()
	for _, fn := range rep.Functions {
		if fn.Name == name {
			return fn
		}
	}
	t.Fatalf("function %q missing from switchpoints.py's output", name)
	return spFunction{}
}

func instructionAt(t *testing.T, fn spFunction, offset int) spInstruction {
	t.Helper()
	for _, ins := range fn.Instructions {
		if ins.Offset == offset {
			return ins
		}
	}
	t.Fatalf("%s: no instruction at offset %d", fn.Name, offset)
	return spInstruction{}
}

// landingLines lists, sorted and without repeats, "line OPNAME kind" for
// every landing of fn in either mode. A PRECALL landing (warm code, 3.11's
// specialized call) is reported as the CALL it stands for.
func landingLines(t *testing.T, fn spFunction) []string {
	t.Helper()
	set := map[string]bool{}
	for _, ins := range fn.Instructions {
		for _, mode := range []string{"cold", "warm"} {
			for _, s := range ins.Interrupt[mode] {
				l := parseLanding(t, s)
				if l.Offset < 0 {
					set["outside"] = true
					continue
				}
				at := instructionAt(t, fn, l.Offset)
				op := at.Opname
				if op == "PRECALL" {
					op = "CALL"
				}
				set[fmt.Sprintf("%d %s %s", at.Line, op, l.Kind)] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// goldenText renders the deterministic part of the report, one line per
// instruction: no sample counts, no specialized names (they depend on how
// far warm-up got), and no interrupt lists for BlockManager.run (its path
// depends on when the simulated threads reach the barrier). Its first line
// names the Python version it was made with.
func goldenText(rep spReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# switchpoints.py on CPython %s: offset opname arg, line (kernel.py line), static class | where an interrupt set before the instruction lands, cold | warm\n", pythonVersion(rep))
	for _, fn := range rep.Functions {
		fmt.Fprintf(&b, "\n== %s (%s:%d) scenarios: %s\n", fn.Name, fn.File, fn.FirstLine, strings.Join(fn.Scenarios, ","))
		for _, ins := range fn.Instructions {
			line := strconv.Itoa(ins.Line)
			if ins.KernelLine != 0 {
				line += fmt.Sprintf(" (k:%d)", ins.KernelLine)
			}
			static := ins.Static
			if static == "" {
				static = "-"
			}
			fmt.Fprintf(&b, "%4d %s %d, line %s, %s", ins.Offset, ins.Opname, ins.Arg, line, static)
			if fn.Name != "launch.BlockManager.run" && len(fn.Scenarios) > 0 {
				cold := strings.Join(ins.Interrupt["cold"], " ")
				warm := strings.Join(ins.Interrupt["warm"], " ")
				if warm == cold {
					warm = "="
				}
				if cold == "" {
					cold = "-"
				}
				fmt.Fprintf(&b, " | %s | %s", cold, warm)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func pythonVersion(rep spReport) string {
	return strings.Fields(rep.Python)[0]
}

// TestSwitchPointsGolden compares only on the Python the golden file was
// made with: contextlib.py itself changes between 3.11 patch releases
// (3.11.2's _GeneratorContextManager.__exit__ differs from 3.11.7's), so on
// another 3.11.x the other SwitchPoints tests judge alone.
func TestSwitchPointsGolden(t *testing.T) {
	compareGolden(t, switchPointsGolden, switchPoints(t))
}

// runSwitchPoints runs switchpoints.py on python py. The GIL is sampled for
// 0.1 s per scenario group by default and for the script's own 0.3 s with
// SWAPCHECK_LONG=1 (SWITCHPOINTS_GIL_SECONDS, when set, says how long):
// the samples are checked against the static list, never counted, so
// fewer of them ask the same of each.
func runSwitchPoints(py string) ([]byte, error) {
	var env []string
	if _, set := os.LookupEnv("SWITCHPOINTS_GIL_SECONDS"); !set && !testenv.Long() {
		env = append(env, "SWITCHPOINTS_GIL_SECONDS=0.1")
	}
	return runPythonOutput(py, env, filepath.Join("..", "testdata", "cpython", "switchpoints.py"))
}

// compareGolden rewrites the golden file at path from rep under
// -switchpoints.update, and otherwise compares them, but only on the
// Python the golden was made with (its first line names it).
func compareGolden(t *testing.T, path string, rep spReport) {
	t.Helper()
	got := goldenText(rep)
	if *updateSwitchPoints {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run: go test ./model -run SwitchPoints -switchpoints.update")
	header, _, _ := strings.Cut(string(want), "\n")
	if made := "CPython " + pythonVersion(rep) + ":"; !strings.Contains(header, made) {
		t.Skipf("%s was made with another Python (%q); the Python here is %s: not compared",
			path, header, pythonVersion(rep))
	}
	require.Equal(t, string(want), got,
		"switch points of %s changed; review the diff, then: go test ./model -run SwitchPoints -switchpoints.update", path)
}

// switchPointsGoldenLater are the same observation on CPython 3.12 and
// 3.13, for the bytecode interpreter's tests (pyvm's
// TestBreakerChecksMatchCPython): 3.12 inlines comprehensions and has no
// PRECALL, 3.13 checks a backward jump before jumping, so their switch
// points differ. The static column there is 3.11's table applied by
// opname; only the landings are the version's own. On 3.13 the method
// cannot see a landing at a function's RESUME (switchpoints.py's controls
// say why), and each trial's cold code has run once before it.
var switchPointsGoldenLater = map[string]string{
	"3.12": "../testdata/cpython/switchpoints-3.12.golden.txt",
	"3.13": "../testdata/cpython/switchpoints-3.13.golden.txt",
}

// TestSwitchPointsGoldenLater runs switchpoints.py on CPython 3.12 and
// 3.13 (found on the PATH or under pyenv), checks its controls, and
// compares each golden file as TestSwitchPointsGolden does. Each takes as
// long as the 3.11 run, so the default run skips them unless
// -switchpoints.update is given; SWAPCHECK_LONG=1 runs them.
func TestSwitchPointsGoldenLater(t *testing.T) {
	if !testenv.Long() && !*updateSwitchPoints {
		t.Skip("SWAPCHECK_LONG=1 (or -switchpoints.update) runs switchpoints.py on 3.12 and 3.13")
	}
	for _, version := range []string{"3.12", "3.13"} {
		t.Run(version, func(t *testing.T) {
			py := testenv.PythonVersion(t, version)
			out, err := runSwitchPoints(py)
			require.NoError(t, err)
			var rep spReport
			require.NoError(t, json.Unmarshal(out, &rep), "output of switchpoints.py:\n%s", out)
			require.True(t, strings.HasPrefix(rep.Python, version+"."), "%s is %s", py, rep.Python)
			for _, f := range rep.Facts {
				require.True(t, f.Holds, "on %s the control %s fails: %s", rep.Python, f.Name, f.Detail)
			}
			compareGolden(t, switchPointsGoldenLater[version], rep)
		})
	}
}
