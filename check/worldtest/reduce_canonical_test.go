package worldtest_test

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"swapcheck/check"
	"swapcheck/internal/testenv"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// The symmetry reduction is checked at two levels:
//
//   - the canonical key against a deliberately simple reference, the
//     smallest live vector over every permutation of each group's threads:
//     two states must share a key exactly when they share the reference
//     (the key is a function of the orbit, and only of it), and permuting
//     a state must not change its key;
//   - the search: sched.States, keyed canonically, must reach the verdict
//     DFS reaches, with the same counterexample, on generated shapes and on
//     random scenarios, while storing no more states.
//
// TestBrokenSymmetryIsCaught then breaks the key on purpose and checks
// that these tests notice.

// referenceKey is the orbit's smallest live vector, by brute force.
func referenceKey(w *model.World) string {
	groups := w.Program().GroupsForTest()
	perm := make([]int, w.NumThreads())
	for t := range perm {
		perm[t] = t
	}
	var best []byte
	var try func(g int)
	try = func(g int) {
		if g == len(groups) {
			if v := w.PermutedForTest(perm).LiveVectorForTest(); best == nil || bytes.Compare(v, best) < 0 {
				best = v
			}
			return
		}
		members := groups[g]
		eachPermutation(len(members), func(p []int) {
			for i, t := range members {
				perm[t] = members[p[i]]
			}
			try(g + 1)
		})
	}
	try(0)
	return string(best)
}

// eachPermutation calls f with every permutation of 0..n-1 (Heap's
// algorithm; f must not keep p).
func eachPermutation(n int, f func(p []int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var gen func(k int)
	gen = func(k int) {
		if k <= 1 {
			f(p)
			return
		}
		for i := range k - 1 {
			gen(k - 1)
			if k%2 == 0 {
				p[i], p[k-1] = p[k-1], p[i]
			} else {
				p[0], p[k-1] = p[k-1], p[0]
			}
		}
		gen(k - 1)
	}
	gen(n)
}

// randomPermutation maps each group onto itself at random.
func randomPermutation(w *model.World, rng *rand.Rand) []int {
	perm := make([]int, w.NumThreads())
	for t := range perm {
		perm[t] = t
	}
	for _, members := range w.Program().GroupsForTest() {
		shuffled := slices.Clone(members)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i, t := range members {
			perm[t] = shuffled[i]
		}
	}
	return perm
}

// acrossGroups permutes the GPU threads at random, ignoring groups.
func acrossGroups(w *model.World, rng *rand.Rand) []int {
	perm := []int{model.Host}
	for _, t := range rng.Perm(w.NumThreads() - 1) {
		perm = append(perm, 1+t)
	}
	return perm
}

// keyScenarios are walkScenarios plus groups of three threads with nested
// calls into two modules, and two blocks of two launches.
func keyScenarios(t testing.TB) map[string]*scenario.Scenario {
	sc := walkScenarios(t)
	sc["nested"] = build(t, scenario.Shape{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Nest: 1})
	sc["launches"] = parse(t, `threads 2
blocks 2
launches 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
kernel: call f; raise`)
	// raise faults (raisefault.go): in GPU threads and in a host's call,
	// two per execution; and with interrupts, sharing the bound
	sc["raise faults"] = parse(t, `threads 2
faults raise
max-faults 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
kernel: call f; syncthreads
host: call f; launch`)
	sc["raise and interrupt"] = parse(t, `threads 1
launches 2
faults interrupt,raise
max-faults 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
kernel: call f`)
	for name, b := range branchScenarios(t) {
		sc[name] = b
	}
	return sc
}

// branchScenarios are kernels whose threads differ: arms taken by some
// threads only, a raise in one arm, a repeat around a branch, and a
// device function that branches itself.
func branchScenarios(t testing.TB) map[string]*scenario.Scenario {
	return map[string]*scenario.Scenario{
		"branch arms": parse(t, `threads 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
kernel: if tid == 0: call f; else: use cuda.local; end`),
		"branch raises": parse(t, `threads 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
kernel: call f; if tid == 1: raise; end`),
		"branch in repeat": parse(t, `threads 2
module kernels cuda
module dev cuda
device f in dev: use cuda.local
device g in dev: use cuda.shared
kernel: repeat 2: if tid == 0: call f; else: call g; end; end`),
		"device branches": parse(t, `threads 2
module kernels cuda
module dev cuda
module inner cuda
device h in inner: use cuda.local
device f in dev: if tid >= 1: call h; end; use cuda.local
kernel: call f`),
	}
}

// checkBranches compares the searches on branchScenarios under every
// protocol and atomicity, and returns the first disagreement, or "": the
// first counterexample (compareSearches), and, in the GIL modes, searching
// on past every failure, the end states and failure kinds each reaches
// (compareEnds). The first alone misses a key blind to branch outcomes:
// DFS meets its first violation before revisiting any state.
func checkBranches(t testing.TB) string {
	scs := branchScenarios(t)
	for _, name := range slices.Sorted(maps.Keys(scs)) {
		for _, p := range protocols {
			for _, a := range atomicities {
				prog := program(t, scs[name], p, a)
				d, _ := compareSearches(prog, 0)
				if d == "" && !a.NoGIL() {
					// past failures the free-threaded spaces take
					// minutes: the GIL modes only
					d = compareEnds(prog)
				}
				if d != "" {
					return fmt.Sprintf("%s/%s/%s: %s", name, p.Name, a, d)
				}
			}
		}
	}
	return ""
}

// endsRecorder searches on past every failure, recording the failures'
// kinds and the end states, each by its canonical key (an end state's key
// names no code: every thread has finished).
type endsRecorder struct {
	sched.System
	ends, kinds map[string]bool
}

func newEndsRecorder(prog *model.Program) *endsRecorder {
	return &endsRecorder{System: check.NewSystem(prog), ends: map[string]bool{}, kinds: map[string]bool{}}
}

func (r *endsRecorder) Step(t sched.ThreadID) *sched.Failure {
	if f := r.System.Step(t); f != nil {
		r.kinds[f.Kind] = true
	}
	return nil
}

func (r *endsRecorder) Final() *sched.Failure {
	r.ends[string(r.AppendCanonicalKey(nil))] = true
	if f := r.System.Final(); f != nil {
		r.kinds[f.Kind] = true
	}
	return nil
}

func (r *endsRecorder) Clone() sched.System {
	c := *r
	c.System = r.System.Clone()
	return &c
}

func (r *endsRecorder) AppendCanonicalKey(b []byte) []byte {
	return r.System.(sched.Canonical).AppendCanonicalKey(b)
}

// compareEnds runs DFS and States (keyed up to symmetry) on prog, both
// searching on past every failure, and describes the first way they
// differ in the end states (up to symmetry) and failure kinds they reach,
// or returns "". A sound key loses no end state: each state it skips has
// the future of one it expanded, permuted.
func compareEnds(prog *model.Program) string {
	dfs, st := newEndsRecorder(prog), newEndsRecorder(prog)
	sched.DFS{}.Run(dfs, sched.Limits{})
	sched.States{}.Run(st, sched.Limits{})
	switch {
	case !maps.Equal(dfs.kinds, st.kinds):
		return fmt.Sprintf("dfs met failures %v, states %v", slices.Sorted(maps.Keys(dfs.kinds)), slices.Sorted(maps.Keys(st.kinds)))
	case !maps.Equal(dfs.ends, st.ends):
		return fmt.Sprintf("dfs reached %d end states, states %d", len(dfs.ends), len(st.ends))
	}
	return ""
}

// Threads that take different arms are not interchangeable: States,
// keyed up to symmetry, reaches DFS's verdict and counterexample on
// kernels whose threads differ.
func TestStatesAgreesWithDFSOnBranches(t *testing.T) {
	t.Cleanup(model.VerifyCanonForTest())
	require.Empty(t, checkBranches(t))
}

// checkKeys walks each scenario under each protocol and atomicity and
// returns the first disagreement between AppendCanonicalKey and the
// reference, or "". At every state of the walks it compares the state with
// its neighbours: the state with its threads permuted within their groups
// (the same orbit), with all GPU threads permuted regardless of group, and
// with one slot changed (mostly another orbit, as the reference says).
// Keys must be equal exactly when references are, and a key seen on two
// walks must have the same reference both times. By default each scenario
// is walked under one protocol and one atomicity, rotating along the
// scenarios (testenv.Rotate); SWAPCHECK_LONG=1 walks every scenario x
// protocol x atomicity.
func checkKeys(t testing.TB, seeds uint64) string {
	scs := keyScenarios(t)
	for i, name := range slices.Sorted(maps.Keys(scs)) {
		for _, pi := range testenv.Rotate(i, len(protocols)) {
			p := protocols[pi]
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				prog := program(t, scs[name], p, a)
				byKey := map[string]string{} // canonical key -> reference
				rng := rand.New(rand.NewPCG(1, 2))
				bad := ""
				for seed := range seeds {
					walk(model.New(prog), sched.NewSeeded(seed), func(w *model.World) {
						if bad != "" {
							return
						}
						k, ref := string(w.AppendCanonicalKey(nil)), referenceKey(w)
						if r, ok := byKey[k]; ok && r != ref {
							bad = "two states of different orbits share a key"
							return
						}
						byKey[k] = ref
						neighbours := map[string]*model.World{
							"within groups": w.PermutedForTest(randomPermutation(w, rng)),
							"across groups": w.PermutedForTest(acrossGroups(w, rng)),
						}
						if n, ok := w.WithSlotForTest(rng.IntN(w.SlotsForTest()), 1); ok {
							neighbours["one slot"] = n
						}
						for _, what := range slices.Sorted(maps.Keys(neighbours)) {
							n := neighbours[what]
							sameKey := string(n.AppendCanonicalKey(nil)) == k
							sameRef := referenceKey(n) == ref
							if sameKey != sameRef {
								bad = fmt.Sprintf("a neighbour (%s): same key %v, same orbit %v", what, sameKey, sameRef)
								return
							}
						}
					})
				}
				if bad != "" {
					return fmt.Sprintf("%s/%s/%s: %s", name, p.Name, a, bad)
				}
			}
		}
	}
	return ""
}

// The key leaves out a frame's tmp except in the step right after the one
// that set it, which is the only step that may read it: a listing that
// reads it later makes the step panic.
func TestTmpReadLaterPanics(t *testing.T) {
	p := (&model.Protocol{Name: "reads-late", Source: "none.py", Code: []model.Instr{
		{Line: 1, Text: "x = d[k]", Bytecode: "BINARY_SUBSCR", Object: model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.SetTmp(1) }},
		{Line: 2, Text: "lock", Bytecode: "LOAD_FAST", Object: model.GlobalLock, Access: sched.Write,
			Exec: func(c *model.Ctx) {}},
		{Line: 3, Text: "d[k] = x + 1", Bytecode: "STORE_SUBSCR", Object: model.CountRegistry, Access: sched.Write,
			Exec: func(c *model.Ctx) { c.StoreCount(c.Tmp() + 1) }},
		{Label: "try", Line: 4, Text: "yield", Bytecode: "YIELD_VALUE", Object: model.NoObject, Yield: true},
	}}).Compile()
	w := model.New(program(t, build(t, scenario.DefaultShape), p, model.GIL))
	require.PanicsWithValue(t, "model: protocol reads-late: instruction 2 reads a tmp that the frame's previous step did not set",
		func() { walk(w, first{}, nil) })
}

func TestCanonicalKeyMatchesReference(t *testing.T) {
	sequentialOnly(t)
	t.Cleanup(model.VerifyCanonForTest())
	require.Empty(t, checkKeys(t, 4))
}

// The key is built in scratch space its World keeps: after the first call
// it allocates nothing but the bytes it appends.
func TestCanonicalKeyAllocations(t *testing.T) {
	w := model.New(program(t, build(t, scenario.Shape{Threads: 4, Blocks: 2, Calls: 2, Modules: 2, Names: 2, Nest: 1}), protocols[len(protocols)-1], model.GIL))
	for range 20 {
		w.Step(int(runnable(w)[0]))
	}
	buf := w.AppendCanonicalKey(nil)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = w.AppendCanonicalKey(buf[:0]) }))
}

// checkBisimulation walks up to limit raw states of prog depth-first and
// returns "" if states with equal canonical keys have the same outcomes:
// the same set of successors' keys, each with the failure its step
// reports, and the same end (deadlock or Final's failure). That is what
// lets a search expand one state per key and still reach every outcome;
// it is stronger than the searches agreeing, since a key that drops a slot
// the future never reads but a later key shows would pass those and fail
// here.
func checkBisimulation(prog *model.Program, limit int) string {
	outcomes := map[string]string{} // canonical key -> outcomes
	seen := map[string]bool{}
	var visit func(s *check.System) string
	visit = func(s *check.System) string {
		raw := string(s.AppendKey(nil))
		if seen[raw] || len(seen) >= limit {
			return ""
		}
		seen[raw] = true
		var outs []string
		var next []*check.System
		allDone := true
		for u := range sched.ThreadID(s.NumThreads()) {
			switch s.Status(u) {
			case sched.Blocked:
				allDone = false
			case sched.Runnable:
				allDone = false
				c := s.Clone().(*check.System)
				kind := ""
				if f := c.Step(u); f != nil {
					kind = f.Kind
				} else {
					next = append(next, c)
				}
				outs = append(outs, string(c.AppendCanonicalKey(nil))+"/"+kind)
			}
		}
		if len(outs) == 0 {
			if !allDone {
				outs = append(outs, "deadlock")
			} else if f := s.Final(); f != nil {
				outs = append(outs, "final "+f.Kind)
			}
		}
		slices.Sort(outs)
		got := strings.Join(slices.Compact(outs), "|")
		k := string(s.AppendCanonicalKey(nil))
		if want, ok := outcomes[k]; ok && want != got {
			return "two states with one key differ in their successors"
		}
		outcomes[k] = got
		for _, c := range next {
			if d := visit(c); d != "" {
				return d
			}
		}
		return ""
	}
	// every violation, after-failure ones included, is an outcome here:
	// the keys must tell apart what any scope can see
	return visit(check.NewScopedSystem(prog, check.ScopeAll))
}

// bisimShapes are the shapes TestKeysAreABisimulation walks.
var bisimShapes = []scenario.Shape{
	{Threads: 3, Blocks: 1, Calls: 2, Modules: 2, Names: 1, Syncthreads: true},
	{Threads: 2, Blocks: 2, Calls: 1, Modules: 1, Names: 2, Nest: 1},
}

// checkBisimulations walks bisimShapes and keyScenarios (checkBisimulation)
// and returns the first disagreement, or "". By default each is walked
// under every protocol and one atomicity, rotating along them
// (testenv.Rotate); SWAPCHECK_LONG=1 walks every one x protocol x
// atomicity. (Every protocol: one broken key, BrokenOneGroup, shows in
// the successors only on launches and with naive, global-lock or
// proposed, or with proposed on two hosts or with raise and interrupt.)
func checkBisimulations(t testing.TB, limit int) string {
	scs := keyScenarios(t)
	names := slices.Sorted(maps.Keys(scs))
	for i := range len(bisimShapes) + len(names) {
		var sc *scenario.Scenario
		var name string
		if i < len(bisimShapes) {
			sc, name = build(t, bisimShapes[i]), fmt.Sprintf("%+v", bisimShapes[i])
		} else {
			name = names[i-len(bisimShapes)]
			sc = scs[name]
		}
		for _, p := range protocols {
			for _, ai := range testenv.Rotate(i, len(atomicities)) {
				a := atomicities[ai]
				if d := checkBisimulation(program(t, sc, p, a), limit); d != "" {
					return fmt.Sprintf("%s/%s/%s: %s", name, p.Name, a, d)
				}
			}
		}
	}
	return ""
}

// TestKeysAreABisimulation walks up to 1,000 raw states per program by
// default, 5,000 with SWAPCHECK_LONG=1 (and every program: see
// checkBisimulations).
func TestKeysAreABisimulation(t *testing.T) {
	sequentialOnly(t)
	limit := 1_000
	if testenv.Long() {
		limit = 5_000
	}
	require.Empty(t, checkBisimulations(t, limit))
}

// compareSearches runs DFS and States on prog and describes the first way
// they disagree: verdict, counterexample, or States storing more states.
// With polls > 0, DFS stops after that many polls of Limits.Stop (4096
// steps each); skipped then reports that it did not finish, and nothing is
// compared.
func compareSearches(prog *model.Program, polls int) (diff string, skipped bool) {
	var lim sched.Limits
	if polls > 0 {
		lim.Stop = func() bool { polls--; return polls < 0 }
	}
	dfs := sched.DFS{}.Run(check.NewSystem(prog), lim)
	if dfs.Verdict == sched.Incomplete {
		return "", true
	}
	st := sched.States{}.Run(check.NewSystem(prog), sched.Limits{})
	switch {
	case dfs.Verdict != st.Verdict:
		return fmt.Sprintf("dfs: %s, states: %s", dfs.Verdict, st.Verdict), false
	case dfs.Verdict == sched.Violation && dfs.Failure.Kind != st.Failure.Kind:
		return fmt.Sprintf("dfs found %s, states %s", dfs.Failure.Kind, st.Failure.Kind), false
	case !slices.Equal(dfs.Schedule, st.Schedule):
		return fmt.Sprintf("dfs found %v, states %v", dfs.Schedule, st.Schedule), false
	case st.Stats.States > dfs.Stats.States:
		return fmt.Sprintf("states stored %d states, dfs %d", st.Stats.States, dfs.Stats.States), false
	}
	return "", false
}

// gridShapes are the shapes of the exhaustive comparison: 2 to 4 threads,
// 1 or 2 calls into 1 or 2 modules, with and without syncthreads, but the
// largest (4 threads with 2 calls) only where they end quickly.
func gridShapes(short bool) []scenario.Shape {
	var shapes []scenario.Shape
	for threads := 2; threads <= 4; threads++ {
		for calls := 1; calls <= 2; calls++ {
			for modules := 1; modules <= 2; modules++ {
				for _, sync := range []bool{false, true} {
					if short && threads+calls > 4 {
						continue
					}
					shapes = append(shapes, scenario.Shape{Threads: threads, Blocks: 1, Calls: calls, Modules: modules, Names: 1, Syncthreads: sync})
				}
			}
		}
	}
	return shapes
}

// gridTooBig: DFS needs more than a second or two for these (the
// variants registered as correct verify, so their whole space is
// searched).
func gridTooBig(p *model.Protocol, sh scenario.Shape) bool {
	v, err := variants.Lookup(p.Name)
	verifies := err == nil && v.Expected == variants.Correct
	return verifies && sh.Threads == 4 && sh.Calls == 2
}

// gridCases are the grid's programs, named.
func gridCases(t testing.TB, short bool) (names []string, progs []*model.Program) {
	for _, p := range protocols {
		for _, sh := range gridShapes(short) {
			if gridTooBig(p, sh) {
				continue
			}
			for _, a := range atomicities {
				names = append(names, fmt.Sprintf("%s/%s/threads=%d,calls=%d,modules=%d,sync=%v", p.Name, a, sh.Threads, sh.Calls, sh.Modules, sh.Syncthreads))
				progs = append(progs, program(t, build(t, sh), p, a))
			}
		}
	}
	return names, progs
}

// checkGrid compares the searches over the grid and returns the first
// disagreement, or "".
func checkGrid(t testing.TB, short bool) string {
	names, progs := gridCases(t, short)
	for i, prog := range progs {
		if d, _ := compareSearches(prog, 0); d != "" {
			return names[i] + ": " + d
		}
	}
	return ""
}

// TestStatesAgreesWithDFSOnShapes compares the searches on the grid: by
// default its shapes of at most 4 threads and calls together (gridShapes'
// short), with SWAPCHECK_LONG=1 all of them.
func TestStatesAgreesWithDFSOnShapes(t *testing.T) {
	t.Cleanup(model.VerifyCanonForTest())
	names, progs := gridCases(t, !testenv.Long())
	for i, prog := range progs {
		t.Run(names[i], func(t *testing.T) {
			t.Parallel()
			d, _ := compareSearches(prog, 0)
			require.Empty(t, d)
		})
	}
}

// genSearchScenario draws a scenario small enough for DFS: up to 4 GPU
// threads in all (2 or 3 a block, 1 or 2 blocks or launches), up to 3
// modules with 1 or 2 names, up to 3 device functions calling later ones
// (so calls nest), and kernel and device bodies of uses, calls,
// syncthreads and raises.
func genSearchScenario(t *rapid.T) *scenario.Scenario {
	sc := &scenario.Scenario{Threads: rapid.IntRange(2, 3).Draw(t, "threads"), Blocks: 1, Launches: 1}
	if sc.Threads == 2 {
		switch rapid.IntRange(0, 2).Draw(t, "repeat") {
		case 1:
			sc.Blocks = 2
		case 2:
			sc.Launches = 2
		}
	}
	names := []string{"cuda", "cu"}
	for m := range rapid.IntRange(1, 3).Draw(t, "modules") {
		sc.Modules = append(sc.Modules, scenario.Module{Name: fmt.Sprintf("mod%d", m), Names: names[:rapid.IntRange(1, 2).Draw(t, "names")]})
	}
	nf := rapid.IntRange(0, 3).Draw(t, "functions")
	body := func(mod, callFrom, most int) []scenario.Stmt {
		var out []scenario.Stmt
		for range rapid.IntRange(1, most).Draw(t, "statements") {
			switch k := rapid.IntRange(0, 9).Draw(t, "kind"); {
			case k <= 3:
				out = append(out, scenario.Stmt{Kind: scenario.OpUse, Attr: "local",
					Name: rapid.IntRange(0, len(sc.Modules[mod].Names)-1).Draw(t, "name")})
			case k <= 6 && callFrom < nf:
				out = append(out, scenario.Stmt{Kind: scenario.OpCall, Func: rapid.IntRange(callFrom, nf-1).Draw(t, "callee")})
			case k <= 7:
				out = append(out, scenario.Stmt{Kind: scenario.OpSync})
			case k == 8:
				out = append(out, scenario.Stmt{Kind: scenario.OpRaise})
			}
		}
		return out
	}
	for i := range nf {
		m := rapid.IntRange(0, len(sc.Modules)-1).Draw(t, "module")
		sc.Functions = append(sc.Functions, scenario.Function{Name: fmt.Sprintf("f%d", i), Module: m, Body: body(m, i+1, 2)})
	}
	sc.Kernel = body(0, 0, 3)
	if sc.Threads == 2 && sc.Blocks == 1 && sc.Launches == 1 && rapid.IntRange(0, 3).Draw(t, "two hosts") == 0 {
		sc.Hosts = 2
	}
	if nf > 0 && rapid.IntRange(0, 3).Draw(t, "host calls") == 0 {
		// the host calls a device function before or after its launches
		f := scenario.HostStmt{Kind: scenario.HostCall, Func: rapid.IntRange(0, nf-1).Draw(t, "host callee")}
		for l := range sc.Launches {
			if l == 0 && rapid.Bool().Draw(t, "host call first") {
				sc.Host = append(sc.Host, f)
			}
			sc.Host = append(sc.Host, scenario.HostStmt{Kind: scenario.HostLaunch})
		}
		sc.Host = append(sc.Host, f)
	}
	// (drawn last, so that the draws above give the scenarios they gave
	// before branches existed) a branch on tid around the kernel's tail,
	// or a repeat of it
	if len(sc.Kernel) > 0 {
		k := rapid.IntRange(0, len(sc.Kernel)-1).Draw(t, "branch from")
		tail := slices.Clone(sc.Kernel[k:])
		switch rapid.IntRange(0, 3).Draw(t, "branch") {
		case 1:
			sc.Kernel = append(sc.Kernel[:k:k], scenario.Stmt{Kind: scenario.OpIf, Cond: scenario.Cond{Op: scenario.CmpEq, Than: 0}, Then: tail})
		case 2:
			split := rapid.IntRange(0, len(tail)).Draw(t, "else from")
			sc.Kernel = append(sc.Kernel[:k:k], scenario.Stmt{Kind: scenario.OpIf, Cond: scenario.Cond{Op: scenario.CmpLt, Than: 1}, Then: tail[:split], Else: tail[split:]})
		case 3:
			sc.Kernel = append(sc.Kernel[:k:k], scenario.Stmt{Kind: scenario.OpRepeat, Times: 2, Body: tail})
		}
	}
	return sc
}

var genSearch = rapid.Custom(func(t *rapid.T) (g struct {
	sc *scenario.Scenario
	p  *model.Protocol
	a  model.Atomicity
}) {
	g.sc = genSearchScenario(t)
	g.p = rapid.SampledFrom(protocols).Draw(t, "protocol")
	g.a = rapid.SampledFrom(atomicities).Draw(t, "atomicity")
	return g
})

// randomPolls bounds DFS on a random scenario: most have a few hundred
// states, but one in a hundred or so has millions.
const randomPolls = 64

func TestStatesAgreesWithDFSOnRandomScenarios(t *testing.T) {
	t.Cleanup(model.VerifyCanonForTest())
	compared, skipped := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		g := genSearch.Draw(t, "search")
		prog, err := model.NewProgram(g.sc, g.p, g.a)
		require.NoError(t, err)
		d, skip := compareSearches(prog, randomPolls)
		if d != "" {
			t.Fatalf("%s %s on\n%s: %s", g.p.Name, g.a, g.sc, d)
		}
		if skip {
			skipped++
		} else {
			compared++
		}
	})
	t.Logf("%d scenarios compared, %d too big for dfs", compared, skipped)
}

// checkRandom compares the searches on the first n scenarios genSearch
// draws from fixed seeds, each under every variant (not only the one
// drawn: a new variant must not change which scenarios the others get),
// and returns the first disagreement, or "".
func checkRandom(n int) string {
	for i := range n {
		g := genSearch.Example(i)
		for _, p := range protocols {
			prog, err := model.NewProgram(g.sc, p, g.a)
			if err != nil {
				panic(err)
			}
			if d, _ := compareSearches(prog, randomPolls); d != "" {
				return fmt.Sprintf("example %d, %s %s: %s", i, p.Name, g.a, d)
			}
		}
	}
	return ""
}

// TestBrokenSymmetryIsCaught breaks the canonical key on purpose and checks
// that the tests above fail. Every broken key must disagree with the
// reference; those that merge states whose successors differ must fail the
// bisimulation test; forgetting the callers' frames, which merges states
// whose futures differ in what they can violate, must make the searches
// disagree too (on the grid and on the random scenarios).
//
// The searches cannot catch the others here, which is why the keys are
// also checked directly. One group for all GPU threads: blocks run one
// after another, so threads of different blocks are hardly ever in
// interchangeable states at once; the lingering threads of an aborted
// launch are, but they want another fake than the next launch's threads
// only when they read cuda, and by then the search has failed already.
// A key blind to branch outcomes merges threads at one position of
// different programs; the first counterexample hardly changes (DFS meets
// it before revisiting a state), but the failures a search past them
// meets do (checkBranches).
// Lock owners, unrenamed or left out: the model only asks whether a lock
// is held, never by whom, and whether it is held follows from the holder's
// frames, so leaving them out merges only states with the same outcomes.
//
// The checks run at the size of the run (checkKeys and checkBisimulations
// sample by default, SWAPCHECK_LONG=1 runs them whole): the default suite
// notices each broken key as the long one does.
func TestBrokenSymmetryIsCaught(t *testing.T) {
	sequentialOnly(t)
	for _, tc := range []struct {
		broken          model.BrokenSymmetry
		bisim, searches bool // which tests catch it besides the key's
		branches        bool // the searches on branchScenarios
	}{
		{model.BrokenOneGroup, true, false, false},
		{model.BrokenTopFrameOnly, true, true, false},
		{model.BrokenNoRename, true, false, false},
		{model.BrokenNoOwners, false, false, false},
		{model.BrokenBranchBlind, true, false, true},
	} {
		t.Run(tc.broken.String(), func(t *testing.T) {
			defer model.BreakSymmetryForTest(tc.broken)()
			keys, bisim := checkKeys(t, 3), checkBisimulations(t, 1_000)
			t.Logf("key test: %s", keys)
			t.Logf("bisimulation test: %s", bisim)
			require.NotEmpty(t, keys, "the key test did not notice")
			if tc.bisim {
				require.NotEmpty(t, bisim, "the bisimulation test did not notice")
			}
			if tc.searches {
				random, grid := checkRandom(300), checkGrid(t, true)
				t.Logf("random scenarios: %.300s", random)
				t.Logf("shapes: %.300s", grid)
				require.NotEmpty(t, random, "the random scenarios did not notice")
				require.NotEmpty(t, grid, "the shapes did not notice")
			}
			if tc.branches {
				branches := checkBranches(t)
				t.Logf("branching kernels: %.300s", branches)
				require.NotEmpty(t, branches, "the searches on branching kernels did not notice")
			}
		})
	}
}
