package cli_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
)

const scenarioDir = "../../../testdata/scenarios"

func parseScenarioFile(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	f, err := os.Open(filepath.Join(scenarioDir, name))
	require.NoError(t, err)
	defer f.Close()
	sc, err := scenario.Parse(f)
	require.NoError(t, err, name)
	return sc
}

var update = flag.Bool("update", false, "rewrite "+scenarioGolden+" with today's outcomes, and docs/verdicts.md's verdict table with -table's")

// scenarioGolden records the outcome of every registered variant on each
// file under testdata/scenarios, under every atomicity mode.
const scenarioGolden = "testdata/scenario-verdicts.txt"

// TestScenarioFiles checks the outcome every registered variant gets on
// each file under testdata/scenarios, under every atomicity mode, against
// scenarioGolden (rewrite it with -update, and review the diff: a change
// there is a change in what the tool finds); for the variants named
// below, it also checks the outcomes explained here. By default each file
// and variant runs under one atomicity mode, taken in turn
// (testenv.Rotate: every mode comes round), and each outcome that ran is
// checked against its line of scenarioGolden; SWAPCHECK_LONG=1, and
// -update, run every mode and compare (or rewrite) the whole file.
func TestScenarioFiles(t *testing.T) {
	// The refcount variants' 2-thread race: the lock is fetched before the
	// last exit deletes it, then deleted twice.
	delKeyError := func(src string) want {
		return violation(check.KindException, "KeyError raised by the swap machinery at "+src+":45: del _globals_locks[gid]")
	}
	var (
		sawReal = violation(check.KindUseSawReal, "is the real module")
		// In free-threaded CPython before gh-142495's fix both racing
		// threads can miss in the defaultdict(threading.Lock) and hold
		// different locks; with the fix they get the same one.
		unregisteredFT = violation(check.KindUseSawReal, "is the real module")
		unregistered   = delKeyError("refcount_unregistered.py")
		refcountDel    = delKeyError("refcount_del.py")
	)
	// The kernel raises, so launch 1's other thread lingers. What it sees
	// itself hurts nobody (after failure: see lingering-thread.txt); the
	// harm is launch 2's: the lingering thread is inside f, so launch 2's
	// entry finds a positive count, never swaps to its own fake, and reads
	// launch 1's (its blockDim and threadIdx). This is the brief's
	// aborted-launch failure mode, and merged (numba-cuda 0.25.0) has it
	// too: nothing checks that the fake installed is the caller's own.
	launch2SawFake1 := violation(check.KindUseSawOtherFake, "L2.B0.T0: dev1.cuda is fake#1, the fake of another launch, not fake#2")
	// A device function the host calls after an aborted launch, while a
	// lingering thread of it still holds its swap: the host reads launch
	// 1's fake where its call swaps to None.
	// Two hosts: the second tests _kernel_context after the first set it
	// and runs the kernel itself, as a device function, with the first
	// launch's fake.
	inlineSawFake1 := violation(check.KindUseSawOtherFake, "host1: dev1.cuda is fake#1, the fake of another launch, not None")
	hostSawFake1 := violation(check.KindUseSawOtherFake, "host: dev1.cuda is fake#1, the fake of another launch, not None")
	// An interrupted launch's thread, once the launch's swap restored.
	interruptedHurtLaunch2 := violation(check.KindUseSawOtherFake, "L2.B0.T0: kernels.cuda is fake#1, the fake of another launch, not fake#2")

	// modes lists a protocol's outcomes in model.Atomicities order: gil,
	// free-threaded, free-threaded-overwrite, gil-breaker.
	modes := func(w ...want) []want { return w }
	same := func(w want) []want { return modes(w, w, w, w) }
	syncUnregistered := violation(check.KindException, "KeyError", "refcount_unregistered.py:43")
	syncDel := violation(check.KindException, "KeyError", "refcount_del.py:43")
	syncLeft := violation(check.KindLeftSwapped, "dev1.cuda is fake#1")
	tests := []struct {
		file string
		want map[string][]want
	}{
		{"nested-two-modules.txt", map[string][]want{
			"naive":                 same(violation(check.KindUseSawReal, "helpers.cuda is the real module")),
			"global-lock":           same(verified),
			"refcount-unregistered": modes(unregistered, unregistered, violation(check.KindUseSawReal, "mathlib.cuda is the real module"), unregistered),
			"refcount-del":          same(refcountDel),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		{"syncthreads.txt", map[string][]want{
			"naive":                 same(sawReal),
			"global-lock":           same(verified),
			"refcount-unregistered": modes(unregistered, unregistered, unregisteredFT, unregistered),
			"refcount-del":          same(refcountDel),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		{"aliases.txt", map[string][]want{
			"naive":                 same(sawReal),
			"global-lock":           same(verified),
			"refcount-unregistered": modes(unregistered, unregistered, unregisteredFT, unregistered),
			"refcount-del":          same(refcountDel),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		{"aborted-launch.txt", map[string][]want{
			// naive and the refcount variants: their own race among the
			// threads of launch 1, before it fails (the lingering thread
			// collects nothing, dev1 already swapped by the other, and is
			// overtaken by the restore; or the lock deleted twice).
			"naive":       same(violation(check.KindUseSawReal, "L1.B0.T1")),
			"global-lock": same(launch2SawFake1),
			"refcount-unregistered": modes(
				violation(check.KindException, "L1.B0.T1: KeyError", "del _globals_locks[gid]"),
				violation(check.KindException, "L1.B0.T1: KeyError", "del _globals_locks[gid]"),
				violation(check.KindUseSawReal, "L1.B0.T1"),
				violation(check.KindException, "L1.B0.T1: KeyError", "del _globals_locks[gid]")),
			"refcount-del": same(violation(check.KindException, "L1.B0.T1: KeyError", "del _globals_locks[gid]")),
			"merged":       same(launch2SawFake1),
			"proposed":     same(verified),
		}},
		// One launch that raises: its lingering thread swaps dev1 to None
		// and reads it, after failure; global-lock and merged restore dev1
		// on its way out and hurt no one (-after-failure reports it).
		{"lingering-thread.txt", map[string][]want{
			"naive":                 same(sawReal),
			"global-lock":           same(verified),
			"refcount-unregistered": modes(unregistered, unregistered, unregisteredFT, unregistered),
			"refcount-del":          same(refcountDel),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		// cuda.syncthreads() is a use of cuda: naive's race reaches the
		// barrier's load (the only use), the refcount variants' lock
		// deletion loses the saved names.
		{"device-syncthreads.txt", map[string][]want{
			"naive":       same(violation(check.KindUseSawReal, "dev1.cuda is the real module", "has no attribute 'syncthreads'")),
			"global-lock": same(verified),
			// gil-breaker's depth-first search meets a thread's KeyError
			// only after another has left dev1 swapped for good
			"refcount-unregistered": modes(syncUnregistered, syncUnregistered, syncUnregistered, syncLeft),
			"refcount-del":          modes(syncDel, syncDel, syncDel, syncLeft),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		// The host's own calls swap dev1 to None and back around the
		// launch; global-lock and merged leave nothing behind.
		{"host-calls.txt", map[string][]want{
			"naive":                 same(sawReal),
			"global-lock":           same(verified),
			"refcount-unregistered": modes(unregistered, unregistered, violation(check.KindUseSawReal, "is the real module"), unregistered),
			"refcount-del":          same(refcountDel),
			"merged":                same(verified),
			"proposed":              same(verified),
		}},
		// Every variant lets the host's call see launch 1's fake (before
		// gh-142495's fix, refcount-unregistered loses the saved names
		// first).
		{"host-call-after-abort.txt", map[string][]want{
			"naive":       same(hostSawFake1),
			"global-lock": same(hostSawFake1),
			"refcount-unregistered": modes(hostSawFake1, hostSawFake1,
				violation(check.KindException, "L1.B0.T1: KeyError", "refcount_unregistered.py:43"), hostSawFake1),
			"refcount-del": same(hostSawFake1),
			"merged":       same(hostSawFake1),
			"proposed":     same(verified),
		}},
		// Ctrl-C: an interrupt in launch 1 leaves the kernel's module on
		// launch 1's fake (each variant at its own landing: check's
		// TestInterruptHarmIsFoundWhereTheFixtureSays), and launch 2's
		// thread reads it. What launch 1's own threads see once the
		// interrupt left it is after failure. proposed installs its
		// dispatcher for good and has nothing to restore.
		{"interrupt.txt", map[string][]want{
			"naive":                 same(interruptedHurtLaunch2),
			"global-lock":           same(interruptedHurtLaunch2),
			"refcount-unregistered": same(interruptedHurtLaunch2),
			"refcount-del":          same(interruptedHurtLaunch2),
			"merged":                same(interruptedHurtLaunch2),
			"proposed":              same(verified),
		}},
		// A raise fault anywhere in the kernel or f: the aborted launch's
		// harm, with the raise wherever the search puts it (as in
		// aborted-launch.txt: naive's and the refcount variants' own races
		// among launch 1's threads come first).
		{"raise-fault.txt", map[string][]want{
			"naive":       same(violation(check.KindUseSawReal, "L1.B0.T1")),
			"global-lock": same(launch2SawFake1),
			"refcount-unregistered": modes(
				violation(check.KindException, "T1: KeyError", "refcount_unregistered.py:45: del _globals_locks[gid]"),
				violation(check.KindException, "T1: KeyError", "refcount_unregistered.py:45: del _globals_locks[gid]"),
				violation(check.KindUseSawReal, "L1.B0.T1"),
				violation(check.KindException, "T1: KeyError", "refcount_unregistered.py:45: del _globals_locks[gid]")),
			"refcount-del": same(violation(check.KindException, "T1: KeyError", "refcount_del.py:45: del _globals_locks[gid]")),
			"merged":       same(launch2SawFake1),
			"proposed":     same(verified),
		}},
		// No variant of numba-cuda can tell: the swap installs whatever
		// fake its caller passes. proposed's kernel.py has no module-level
		// context to share.
		{"two-hosts.txt", map[string][]want{
			"naive":                 same(inlineSawFake1),
			"global-lock":           same(inlineSawFake1),
			"refcount-unregistered": same(inlineSawFake1),
			"refcount-del":          same(inlineSawFake1),
			"merged":                same(inlineSawFake1),
			"proposed":              same(verified),
		}},
		// Two hosts and Ctrl-C, which only host 0 (the main thread)
		// receives. The depth-first search meets an interrupt's harm
		// first: in merged, the module left swapped (a zero count an
		// interrupt leaves is no leftover: the defaultdict reads it as
		// missing); the two hosts' shared _kernel_context fails every
		// numba-cuda variant besides (two-hosts.txt). proposed's
		// dispatcher survives both.
		{"two-hosts-interrupt.txt", map[string][]want{
			"merged":   same(violation(check.KindLeftSwapped, "kernels.cuda is fake#1")),
			"proposed": same(verified),
		}},
		// Threads that take different arms: naive's race reaches a use
		// in one arm (the condition's own load of cuda in g among them);
		// the refcount variants fail as on -threads 3; no variant's swap
		// depends on the arm.
		{"branching.txt", map[string][]want{
			"naive":       same(violation(check.KindUseSawReal, "dev.cuda is the real module")),
			"global-lock": same(verified),
			"merged":      same(verified),
		}},
		// Branches on the block's index and on the thread's modulo 2:
		// naive's race needs two threads of one block in dev's swap,
		// which threads 0 and 2 of each block give (both call g), and
		// block 1's threads (all call f).
		{"branch-blocks.txt", map[string][]want{
			"naive":       same(violation(check.KindUseSawReal, "dev.cuda is the real module")),
			"global-lock": same(verified),
			"merged":      same(verified),
		}},
		// The simulator's atomics (model/memory.go): add and sub hold
		// different locks, whatever the swap, in every mode; max with
		// nanmax and add with add share theirs; one lock for all fixes
		// it. The kernel uses no device function, so naive's swap race
		// needs a use of cuda after another thread's restore, which no
		// single-statement kernel of one launch has.
		{"atomics-add-sub.txt", map[string][]want{
			"naive":       same(violation(check.KindLostUpdate, "a[0] is")),
			"global-lock": same(violation(check.KindLostUpdate, "a[0] is")),
			"merged":      same(violation(check.KindLostUpdate, "a[0] is")),
			"proposed":    same(violation(check.KindLostUpdate, "a[0] is")),
		}},
		{"atomics-same-lock.txt", map[string][]want{
			"naive":  same(verified),
			"merged": same(verified),
		}},
		{"atomics-fixed.txt", map[string][]want{
			"naive":  same(verified),
			"merged": same(verified),
		}},
		// cuda.shared.array: FakeCUDAShared's get, then store, whatever
		// the swap.
		{"shared-array.txt", map[string][]want{
			"naive":    same(violation(check.KindSharedNotShared, "cuda.shared.array returned array #2", "array #1 from the same line")),
			"merged":   same(violation(check.KindSharedNotShared, "cuda.shared.array returned array #2")),
			"proposed": same(violation(check.KindSharedNotShared, "cuda.shared.array returned array #2")),
		}},
		// a plain store racing an atomic on a kernel array's element
		{"array-elements.txt", map[string][]want{
			"naive":  same(violation(check.KindLostUpdate, "a[0] is 6", "T0 a[0] = 5")),
			"merged": same(violation(check.KindLostUpdate, "a[0] is 6", "T0 a[0] = 5")),
		}},
		// stores, a barrier, loads: the split comes first (the stale
		// read it leads to is check's TestStaleRead's)
		{"shared-barrier.txt", map[string][]want{
			"naive":  same(violation(check.KindSharedNotShared, "cuda.shared.array returned array #2")),
			"merged": same(violation(check.KindSharedNotShared, "cuda.shared.array returned array #2")),
		}},
	}
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.txt"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	var tested []string
	for _, tt := range tests {
		tested = append(tested, tt.file)
	}
	require.ElementsMatch(t, names, tested, "every scenario file has its verdicts recorded here")

	protocols := check.Protocols()
	var atomicities []string
	for _, a := range model.Atomicities() {
		atomicities = append(atomicities, a.String())
	}
	lines := make([]string, len(tests)*len(protocols)*len(atomicities))
	for f, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			sc := parseScenarioFile(t, tt.file)
			again, err := scenario.Parse(strings.NewReader(sc.String()))
			require.NoError(t, err, "the canonical rendering does not parse:\n%s", sc)
			require.Equal(t, sc.String(), again.String(), "the canonical rendering does not round-trip")

			for name, w := range tt.want {
				_, err := check.Lookup(name)
				require.NoError(t, err, "verdicts recorded for a variant that is not registered")
				require.Len(t, w, len(atomicities), "%s: one outcome per atomicity mode", name)
			}
			for p, proto := range protocols {
				modes := testenv.Rotate(f*len(protocols)+p, len(atomicities))
				if *update {
					modes = nil
					for i := range atomicities {
						modes = append(modes, i)
					}
				}
				for _, i := range modes {
					atomicity := atomicities[i]
					w, explained := tt.want[proto.Name]
					line := &lines[(f*len(protocols)+p)*len(atomicities)+i]
					t.Run(proto.Name+"/"+atomicity, func(t *testing.T) {
						t.Parallel()
						// unshrunk: what the search finds in the file
						// (check's TestShrinkKeepsKindAndNeverLengthens
						// shrinks every file)
						code, s := exploreJSON(t, "-strategy", "dfs", "-shrink=false", "-protocol", proto.Name, "-atomicity", atomicity, "-scenario", filepath.Join(scenarioDir, tt.file))
						*line = scenarioLine(tt.file, proto.Name, atomicity, code, s)
						if explained {
							w[i].check(t, code, s)
						}
					})
				}
			}
		})
	}
	if t.Failed() {
		return // they failed: nothing to compare
	}
	if slices.Contains(lines, "") {
		// -run, or the default's sample, left some out: compare those
		// that ran with their lines of the golden file
		if *update {
			return // -run left some out: nothing to rewrite
		}
		golden, err := os.ReadFile(scenarioGolden)
		require.NoError(t, err)
		want := strings.Split(strings.TrimSuffix(string(golden), "\n"), "\n")
		require.Len(t, want, len(lines), "%s has another number of outcomes than files x variants x modes: rewrite it with go test ./cmd/explore/cli -run TestScenarioFiles -update", scenarioGolden)
		for k, line := range lines {
			if line != "" {
				require.Equal(t, want[k], line, "an outcome differs from %s: review, then rewrite it with go test ./cmd/explore/cli -run TestScenarioFiles -update", scenarioGolden)
			}
		}
		return
	}
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		require.NoError(t, os.WriteFile(scenarioGolden, []byte(got), 0o644))
	}
	golden, err := os.ReadFile(scenarioGolden)
	require.NoError(t, err)
	require.Equal(t, string(golden), got, "outcomes differ from %s: review, then rewrite it with go test ./cmd/explore/cli -run TestScenarioFiles -update", scenarioGolden)
}

// scenarioLine is one outcome of scenarioGolden.
func scenarioLine(file, protocol, atomicity string, code int, s summary) string {
	line := fmt.Sprintf("%s %s %s: exit %d, %s", file, protocol, atomicity, code, s.Verdict)
	if v := s.Violation; v != nil {
		line += fmt.Sprintf(" %s in %d steps: %s", v.Kind, len(v.Schedule), v.Message)
	}
	return line
}

func TestScenarioFilesShape(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, sc *scenario.Scenario)
	}{
		{"nested-two-modules.txt", func(t *testing.T, sc *scenario.Scenario) {
			// A device function calls one in another module; both use cuda.
			found := false
			for _, f := range sc.Functions {
				for _, s := range f.Body {
					if s.Kind == scenario.OpCall && sc.Functions[s.Func].Module != f.Module && uses(sc.Functions[s.Func].Body) && uses(f.Body) {
						found = true
					}
				}
			}
			require.True(t, found, "no device function calls a device function of another module, both using cuda")
		}},
		{"syncthreads.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, 3, sc.Threads)
			require.Equal(t, "use call sync call sync call", kinds(sc.Kernel))
		}},
		{"aliases.txt", func(t *testing.T, sc *scenario.Scenario) {
			f := sc.Functions[0]
			require.Equal(t, []string{"cuda", "cu"}, sc.Modules[f.Module].Names)
			used := map[int]bool{}
			for _, s := range f.Body {
				if s.Kind == scenario.OpUse {
					used[s.Name] = true
				}
			}
			require.Len(t, used, 2, "the body uses both names")
		}},
		{"aborted-launch.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, 2, sc.Launches)
			require.Equal(t, "call raise", kinds(sc.Kernel))
		}},
		{"device-syncthreads.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, "sync", kinds(sc.Functions[0].Body), "the barrier is the device function's only use of cuda")
			require.Equal(t, "call call", kinds(sc.Kernel))
		}},
		{"host-calls.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, []scenario.HostStmt{{Kind: scenario.HostCall}, {Kind: scenario.HostLaunch}, {Kind: scenario.HostCall}}, sc.Host)
		}},
		{"lingering-thread.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, 1, sc.Launches)
			require.Equal(t, "call raise", kinds(sc.Kernel))
		}},
		{"two-hosts.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, 2, sc.NumHosts())
		}},
		{"two-hosts-interrupt.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, 2, sc.NumHosts())
			require.Equal(t, "interrupt", sc.Faults.String())
		}},
		{"interrupt.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, "interrupt", sc.Faults.String())
			require.Equal(t, 2, sc.Launches)
		}},
		{"raise-fault.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, "raise", sc.Faults.String())
			require.Equal(t, 2, sc.Launches)
			require.Equal(t, "call use", kinds(sc.Kernel), "no raise statement: the fault raises")
		}},
		{"host-call-after-abort.txt", func(t *testing.T, sc *scenario.Scenario) {
			require.Equal(t, []scenario.HostStmt{{Kind: scenario.HostLaunch}, {Kind: scenario.HostCall}, {Kind: scenario.HostLaunch}}, sc.Host)
			require.Equal(t, "call raise", kinds(sc.Kernel))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { tt.check(t, parseScenarioFile(t, tt.file)) })
	}
}

func uses(body []scenario.Stmt) bool {
	for _, s := range body {
		if s.Kind == scenario.OpUse {
			return true
		}
	}
	return false
}

func kinds(body []scenario.Stmt) string {
	names := map[scenario.OpKind]string{scenario.OpUse: "use", scenario.OpCall: "call", scenario.OpSync: "sync", scenario.OpRaise: "raise", scenario.OpIf: "if", scenario.OpRepeat: "repeat"}
	var out []string
	for _, s := range body {
		out = append(out, names[s.Kind])
	}
	return strings.Join(out, " ")
}

// TestScenarioREADMEExamples parses every example in the README's
// Examples section, and checks the grammar block is the one scenario.Parse
// documents.
func TestScenarioREADMEExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(scenarioDir, "README.md"))
	require.NoError(t, err)
	readme := string(b)
	start := strings.Index(readme, "## Examples")
	end := strings.Index(readme, "## The files here")
	require.True(t, start >= 0 && end > start, "README sections moved")
	blocks := regexp.MustCompile("(?s)```\n(.*?)```").FindAllStringSubmatch(readme[start:end], -1)
	require.NotEmpty(t, blocks)
	for i, blk := range blocks {
		_, err := scenario.Parse(strings.NewReader(blk[1]))
		require.NoError(t, err, "example %d:\n%s", i+1, blk[1])
	}

	// The grammar block is a copy of scenario.Parse's doc comment.
	src, err := os.ReadFile("../../../scenario/parse.go")
	require.NoError(t, err)
	grammar := regexp.MustCompile("(?s)## Grammar.*?```\n(.*?)```").FindStringSubmatch(readme)
	require.NotNil(t, grammar)
	for _, line := range strings.Split(strings.TrimSpace(grammar[1]), "\n") {
		require.Contains(t, string(src), "//\t"+line, "README grammar line not in scenario/parse.go's doc comment")
	}

	// The default generated scenario shown is what the flags build.
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	require.Contains(t, readme, "```\n"+sc.String()+"```")
}

// TestScenarioREADMEListsEveryFile: the table "The files here" of
// testdata/scenarios/README.md names every scenario file there.
func TestScenarioREADMEListsEveryFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(scenarioDir, "README.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "## The files here")
	require.True(t, ok)
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		require.Contains(t, table, "| `"+filepath.Base(f)+"`", "testdata/scenarios/README.md's table omits %s", filepath.Base(f))
	}
}
