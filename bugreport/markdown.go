package bugreport

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"swapcheck"
	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Write writes the bug report of r's violation as Markdown. repro is the
// command that prints the trace again (the trace's replay line).
func Write(w io.Writer, r *check.Report, repro string) error {
	if r.Result.Verdict != sched.Violation || r.Result.Failure == nil {
		return fmt.Errorf("the verdict is %s, not a violation: there is no bug to report", r.Result.Verdict)
	}
	t, err := check.NewTrace(r, repro)
	if err != nil {
		return err
	}
	v := t.Violation
	sc := r.Config.Scenario
	var b strings.Builder
	race, isMemory := memoryRaces[v.Kind]
	if isMemory {
		fmt.Fprintf(&b, "# CUDA simulator: %s (%s)\n\n", race.title, shape(sc))
		b.WriteString("## What breaks\n\n")
		fmt.Fprintf(&b, "Under the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), %s, in %s. %s The module swap around the launch is numba-cuda's `%s` (%s); the race does not depend on it. ",
			race.what, situation(sc), race.code, t.Protocol, r.Config.Protocol.Summary)
	} else {
		fmt.Fprintf(&b, "# `swapped_cuda_module` (%s): %s (%s)\n\n", t.Protocol, headline(v), shape(sc))
		b.WriteString("## What breaks\n\n")
		fmt.Fprintf(&b, "Under the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), the `%s` version of `swapped_cuda_module` fails when %s. That version: %s; swapcheck's rendition of it is `testdata/python/%s`. ",
			t.Protocol, situation(sc), r.Config.Protocol.Summary, r.Config.Protocol.Source)
	}
	fmt.Fprintf(&b, "swapcheck's model checker (explore %s, atomicity `%s`: %s) found it by searching the interleavings of the threads (strategy `%s`).\n\n",
		t.Version, t.Atomicity, r.Config.Atomicity.Doc(), t.Strategy)
	fmt.Fprintf(&b, "%s\n\n", check.KindSeen[v.Kind])
	if v.Kind == check.KindLostUpdate {
		if line, err := printedArrays(r); err != nil {
			return err
		} else if line != "" {
			b.WriteString(line + "\n\n")
		}
	}
	if line := userError(v); line != "" {
		fmt.Fprintf(&b, "The error thread %s raises, as numba's simulator words it:\n\n", v.Thread)
		b.WriteString(fence("text", line+"\n"))
		b.WriteString("\n")
	}
	b.WriteString("The model's verdict:\n\n")
	b.WriteString(fence("text", "violation "+v.Kind+"\n"+v.Message+"\n"))

	b.WriteString("\n## Minimal scenario\n\n")
	fmt.Fprintf(&b, "The Python a user writes: %s. On real threads the failure needs the interleaving of the trace below, so a plain run fails rarely (more often with `sys.setswitchinterval(1e-6)`); the replays at the end force it.\n\n", situation(sc))
	if t.Shrunk != "" {
		fmt.Fprintf(&b, "What swapcheck's shrinking (a smaller scenario, then fewer preemptions, then fewer steps, keeping the violation kind) made of the counterexample its search found, from what to what: %s.\n\n", t.Shrunk)
	}
	if t.FreeThreadedOnly != "" {
		fmt.Fprintf(&b, "Only a free-threaded CPython runs this interleaving: %s.\n\n", strings.TrimPrefix(t.FreeThreadedOnly, "needs a free-threaded build: "))
	}
	if t.Corpus != "" {
		fmt.Fprintf(&b, "The schedule came from swapcheck's corpus of known counterexamples (`%s`), replayed on this scenario before any search.\n\n", t.Corpus)
	}
	for _, f := range pyreplay.UserCode(sc) {
		b.WriteString(fence("python", "# "+f.Name+"\n"+f.Text))
		b.WriteString("\n")
	}
	b.WriteString("In swapcheck's scenario format (`testdata/scenarios/README.md`):\n\n")
	b.WriteString(fence("text", t.Scenario.Text))

	b.WriteString("\n## Trace\n\n")
	src := r.Config.Protocol.Source
	where := fmt.Sprintf("`%s:N` is line N of `testdata/python/%s`", src, src)
	if commit, offset, ok := swapcheck.Upstream(src); ok {
		where += fmt.Sprintf(", which holds numba-cuda %s's `swapped_cuda_module` line for line: `%s:N` is that commit's `numba_cuda/numba/cuda/simulator/kernelapi.py` line N%+d", commit, src, offset)
	}
	fmt.Fprintf(&b, "%s (%s), one atomic CPython operation each, in the column of the thread that took it; `>>` marks the failing step. A cell names the Python line (%s; `kernel.py` the simulator's launch) and, after `->`, what the step read or changed in the module globals and the swap's registries.\n\n",
		check.Count(len(t.Steps), "step"), check.Count(t.Preemptions, "preemption"), where)
	var table bytes.Buffer
	if err := t.WriteTable(&table); err != nil {
		return err
	}
	b.WriteString(fence("text", table.String()))

	b.WriteString("\n## Invariant violated\n\n")
	fmt.Fprintf(&b, "`%s`: %s\n", v.Kind, check.KindInvariant[v.Kind])

	b.WriteString("\n## Replay\n\n")
	b.WriteString("Save the `trace.json` below, then, in a checkout of swapcheck, replay it in the model (it prints the trace above):\n\n")
	b.WriteString(fence("sh", "go run ./cmd/explore -replay trace.json\n"))
	if isMemory && !r.Config.Protocol.Dispatches {
		b.WriteString("\nand on numba's own CUDA simulator (any numba with it, such as Debian's `python3-numba` for `/usr/bin/python3`), forcing this interleaving with a trace hook on the lines of its `kernelapi.py` (`docs/replay.md`); it prints what the kernel's arrays hold and what each atomic returned, and exits 1 when the race happened:\n\n")
		swap := " --swap rendition"
		if r.Config.Protocol.Name == "naive" {
			swap = "" // numba's own swap is naive's
		}
		b.WriteString(fence("sh", "go run ./cmd/explore -replay trace.json -emit-python replay.py\npython3 replay.py --target numba"+swap+"\n"))
		if swap != "" {
			fmt.Fprintf(&b, "\n(`--swap rendition` puts swapcheck's rendition of `%s` in place of the installed `swapped_cuda_module`, whose steps the trace follows; the race is in `kernelapi.py`'s atomics and shared arrays, which stay numba's own.)\n", t.Protocol)
		}
	} else {
		b.WriteString("\nand on real Python threads (CPython 3.11), forcing this interleaving (`docs/replay.md`):\n\n")
		b.WriteString(fence("sh", "go run ./cmd/explore -replay trace.json -emit-python replay.py\npython3 replay.py\n"))
	}
	fmt.Fprintf(&b, "\nThe trace came from `%s`.\n\n", repro)
	compact := *t
	compact.Steps, compact.Replay = nil, ""
	var js bytes.Buffer
	if err := compact.WriteJSON(&js); err != nil {
		return err
	}
	b.WriteString("<details><summary>trace.json</summary>\n\n")
	b.WriteString(fence("json", js.String()))
	b.WriteString("\n</details>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// printedArrays says what main.py prints of the kernel's arrays after
// the counterexample's interleaving, against what it prints after any
// order of the atomics, one at a time.
func printedArrays(r *check.Report) (string, error) {
	got, orders, err := check.ArraysPrinted(r.Program, r.Result.Schedule)
	if err != nil {
		return "", err
	}
	var wrong, same []string
	for i, g := range got {
		switch o := orders[i]; {
		case o != "" && o != g:
			wrong = append(wrong, fmt.Sprintf("`%s`, where every order of the kernel's atomics, one at a time, prints `%s`", g, o))
		case o == g:
			same = append(same, fmt.Sprintf("`%s`", g))
		}
	}
	switch {
	case len(wrong) > 0:
		return "Under the trace's interleaving, `main.py` below prints " + strings.Join(wrong, "; and ") + ".", nil
	case len(same) > 0:
		return "Under the trace's interleaving, `main.py` below prints " + strings.Join(same, ", ") + ", as every order of the atomics does: the update is lost in what the atomics returned (the verdict below says which), which a kernel that uses them sees.", nil
	}
	return "", nil
}

// memoryRace is how a report words a race of the simulator's other
// shared state (check/memory.go): its title, what goes wrong, and the
// code that lets it.
type memoryRace struct{ title, what, code string }

var memoryRaces = map[string]memoryRace{
	check.KindLostUpdate: {
		title: "`cuda.atomic` operations of different kinds lose updates",
		what:  "two `cuda.atomic` operations of different kinds on one element do not exclude each other",
		code:  "`FakeCUDAAtomic` (numba-cuda's `numba_cuda/numba/cuda/simulator/kernelapi.py`, lines 153-245 at HEAD; numba 0.56.4's `numba/cuda/simulator/kernelapi.py`, lines 137-222) holds one module-level lock per operation (`addlock`, `sublock`, ...), so `add` in one thread and `sub` in another run `old = array[index]; array[index] += val` at once, and one's store overwrites the other's.",
	},
	check.KindSharedNotShared: {
		title: "`cuda.shared.array` can give a block's threads different arrays",
		what:  "two threads of a block can get different arrays from one `cuda.shared.array` line",
		code:  "`FakeCUDAShared.array` (numba-cuda's `kernelapi.py`, lines 112-136 at HEAD; numba 0.56.4's, lines 100-121) reads `self._allocations.get(caller)` and, on a miss, stores a fresh `np.empty`: two threads that both miss each store and keep their own.",
	},
	check.KindStaleRead: {
		title: "after `cuda.syncthreads()` a thread does not see another thread's store to a `cuda.shared.array`",
		what:  "a thread can read a slot of a `cuda.shared.array` after `cuda.syncthreads()` and not see what another thread of its block stored there before the barrier",
		code:  "`FakeCUDAShared.array` (numba-cuda's `kernelapi.py`, lines 112-136 at HEAD; numba 0.56.4's, lines 100-121) reads `self._allocations.get(caller)` and, on a miss, stores a fresh `np.empty`: two threads that both miss each keep their own array, and each stores to and reads from its own.",
	},
}

// headline is the failure in a title's words: the error a user sees
// (without the thread's index), else the model's message without its
// thread.
func headline(v *check.TraceViolation) string {
	if _, err, ok := strings.Cut(v.Message, ": AttributeError: "); ok && isUse(v.Kind) {
		return "AttributeError: " + err
	}
	return strings.TrimPrefix(v.Message, v.Thread+": ")
}

func isUse(kind string) bool {
	return kind == check.KindUseSawReal || kind == check.KindUseSawNone
}

var threadIndex = regexp.MustCompile(`^(?:L\d+\.)?(?:B(\d+)\.)?T(\d+)$`)

// userError is the line the simulator raises for a use that saw the real
// module or None: numba's BlockThread prefixes the thread's exception with
// its thread and block index ("" for other kinds).
func userError(v *check.TraceViolation) string {
	_, msg, ok := strings.Cut(v.Message, ": AttributeError: ")
	if !ok || !isUse(v.Kind) {
		return ""
	}
	m := threadIndex.FindStringSubmatch(v.Thread)
	if m == nil {
		return "AttributeError: " + msg
	}
	block := m[1]
	if block == "" {
		block = "0"
	}
	return fmt.Sprintf("AttributeError: tid=[%s, 0, 0] ctaid=[%s, 0, 0]: %s", m[2], block, msg)
}

// shape is the scenario's size, for the title.
func shape(sc *scenario.Scenario) string {
	launches := "1 launch"
	if sc.Launches > 1 {
		launches = fmt.Sprintf("%d launches", sc.Launches)
	}
	return fmt.Sprintf("%s, %s, %s", check.Count(sc.Threads, "thread"), check.Count(sc.Blocks, "block"), launches)
}

// situation says what the scenario's launch does, in words.
func situation(sc *scenario.Scenario) string {
	s := fmt.Sprintf("a kernel launched with %s per block", check.Count(sc.Threads, "thread"))
	if sc.Blocks > 1 {
		s += fmt.Sprintf(" and %d blocks", sc.Blocks)
	}
	if sc.Launches > 1 {
		s += fmt.Sprintf(", %d times,", sc.Launches)
	}
	switch others := len(sc.Modules) - 1; {
	case len(sc.Functions) == 0 || sc.CallDepth() == 0:
		return s
	case others == 0:
		return s + " calls device functions of its own module"
	default:
		return s + fmt.Sprintf(" calls device functions in %s", check.Count(others, "other module"))
	}
}

// fence puts text in a fenced code block whose fence is longer than any
// run of backticks in it, so that nothing inside can close it.
func fence(lang, text string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + lang + "\n" + text + f + "\n"
}
