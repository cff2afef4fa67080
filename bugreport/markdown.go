package bugreport

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"swapcheck/check"
	"swapcheck/pyreplay"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// Write writes the bug report of r's violation as Markdown. repro is the
// command that finds the trace again by a search, as a reader runs it in
// a checkout of swapcheck ("" when the trace came from a replay or a
// corpus, which the report says; a command that names a file by an
// absolute path is left out: a report prints no path of the reporter's
// machine). When r's trace switches threads where CPython 3.11 cannot,
// the report searches again under gil-breaker and prefers its trace
// (realswitch.go).
func Write(w io.Writer, r *check.Report, repro string) error {
	if r.Result.Verdict != sched.Violation || r.Result.Failure == nil {
		return fmt.Errorf("the verdict is %s, not a violation: there is no bug to report", r.Result.Verdict)
	}
	real, err := preferReal(r)
	if err != nil {
		return err
	}
	substituted := real.report != r
	if substituted {
		repro = "" // the command finds the gil trace; the note says how to get this one
	}
	r = real.report
	t, err := check.NewTrace(r, repro)
	if err != nil {
		return err
	}
	script, err := packScript(r)
	why, refused := noReplay(err)
	if err != nil && !refused {
		return err
	}
	inline := !refused
	text, err := write(r, t, repro, real.note, script, why, inline, substituted)
	if err != nil {
		return err
	}
	if inline && len([]rune(text)) > maxIssueBody {
		if text, err = write(r, t, repro, real.note, script, why, false, substituted); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, text)
	return err
}

// write renders the report; inline puts the packed replay.py in it;
// substituted says its trace is not the one the run printed (gil-breaker's
// in place of gil's), so -out's replay.py is not this report's.
func write(r *check.Report, t *check.Trace, repro, switchNote string, script *packedScript, noScript string, inline, substituted bool) (string, error) {
	v := t.Violation
	sc := r.Config.Scenario
	src := r.Config.Protocol.Source
	up := newUpstream(src)
	var b strings.Builder
	race, isMemory := memoryRaces[v.Kind]
	if isMemory {
		fmt.Fprintf(&b, "# CUDA simulator: %s (%s)\n\n", race.title, shape(sc))
		b.WriteString("## What breaks\n\n")
		swap := fmt.Sprintf("numba-cuda %s's, lines %d-%d of its `kernelapi.py`", up.commit, up.line(up.first), up.line(up.last))
		if up.commit == "" {
			swap = "swapcheck's own code, not numba-cuda's"
		}
		fmt.Fprintf(&b, "Under the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), %s, in %s. %s The module swap around the launch is `%s` (%s; %s); the race does not depend on it. ",
			race.what, situation(sc), race.code, t.Protocol, r.Config.Protocol.Summary, swap)
	} else {
		fmt.Fprintf(&b, "# `swapped_cuda_module` (%s): %s (%s)\n\n", t.Protocol, up.annotate(headline(v), true), shape(sc))
		b.WriteString("## What breaks\n\n")
		fmt.Fprintf(&b, "Under the CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`), the `%s` version of `swapped_cuda_module` fails when %s. That version: %s; ",
			t.Protocol, situation(sc), r.Config.Protocol.Summary)
		if up.commit != "" {
			fmt.Fprintf(&b, "it is numba-cuda %s's `%s`, lines %d-%d, and swapcheck's rendition of it, line for line, is `testdata/python/%s`. ",
				up.commit, upstreamFile, up.line(up.first), up.line(up.last), src)
		} else {
			fmt.Fprintf(&b, "it is swapcheck's own code (`testdata/python/%s`), not numba-cuda's, so no line of numba-cuda's `kernelapi.py` stands for its lines. ", src)
		}
	}
	fmt.Fprintf(&b, "%s\n\n", found(t, r))
	if switchNote != "" {
		fmt.Fprintf(&b, "%s\n\n", switchNote)
	}
	fmt.Fprintf(&b, "%s\n\n", check.KindSeen[v.Kind])
	if v.Kind == check.KindLostUpdate {
		if line, err := printedArrays(r); err != nil {
			return "", err
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
	b.WriteString(fence("text", "violation "+v.Kind+"\n"+up.annotate(v.Message, false)+"\n"))

	b.WriteString("\n## Minimal scenario\n\n")
	force := "the replay at the end forces it"
	if noScript != "" {
		force = "the model's replay at the end shows it"
	}
	fmt.Fprintf(&b, "The Python a user writes: %s. On real threads the failure needs the interleaving of the trace below, so a plain run fails rarely (more often with `sys.setswitchinterval(1e-6)`); %s.\n\n", situation(sc), force)
	if line := pyreplay.Symptom(sc); line != "" {
		b.WriteString(line + "\n\n")
	}
	if rest, ok := strings.CutPrefix(t.Shrunk, "nothing: "); ok {
		fmt.Fprintf(&b, "swapcheck's shrinking (a smaller scenario, then fewer preemptions, then fewer steps, keeping the violation kind) left the counterexample as its search found it: %s.\n\n", rest)
	} else if t.Shrunk != "" {
		fmt.Fprintf(&b, "What swapcheck's shrinking (a smaller scenario, then fewer preemptions, then fewer steps, keeping the violation kind) made of the counterexample its search found, from what to what: %s.\n\n", t.Shrunk)
	}
	if t.FreeThreadedOnly != "" {
		fmt.Fprintf(&b, "Only a free-threaded CPython runs this interleaving: %s.\n\n", strings.TrimPrefix(t.FreeThreadedOnly, "needs a free-threaded build: "))
	}
	writeUserCode(&b, sc, t.Scenario.Text)

	b.WriteString("\n## Trace\n\n")
	fmt.Fprintf(&b, "%s (%s), one atomic CPython operation each, for atomicity `%s`, in the column of the thread that took it; `>>` marks the failing step",
		check.Count(len(t.Steps), "step"), check.Count(t.Preemptions, "preemption"), t.Atomicity)
	if unreal := countUnreal(t); unreal > 0 {
		fmt.Fprintf(&b, ", `~` a switch CPython 3.11 cannot make (%d here)", unreal)
	}
	fmt.Fprintf(&b, ". A cell names the Python line (%s; `kernel.py` the simulator's launch) and, after `->`, what the step read or changed in the module globals and the swap's registries.\n\n",
		up.legend())
	annotated := *t
	annotated.Steps = make([]check.TraceEntry, len(t.Steps))
	for i, s := range t.Steps {
		s.Where = up.annotate(s.Where, false)
		annotated.Steps[i] = s
	}
	var table bytes.Buffer
	if err := annotated.WriteTable(&table); err != nil {
		return "", err
	}
	b.WriteString(fence("text", table.String()))

	b.WriteString("\n## Invariant violated\n\n")
	fmt.Fprintf(&b, "`%s`: %s\n", v.Kind, check.KindInvariant[v.Kind])

	b.WriteString("\n## Replay\n\n")
	switch {
	case noScript != "":
		b.WriteString(noScript)
	case inline:
		fmt.Fprintf(&b, "The Python replay needs only Python (CPython 3.11; `docs/replay.md` in swapcheck says which traces 3.12 and 3.13 run) and, to run on numba's own simulator, numba. Unpack it from the block below (`replay.py`, %d bytes, sha256 `%s`, packed with zlib and base64 to fit an issue; unpacked it is plain Python to read before running it):\n\n",
			script.size, script.sha256)
		script.writeDetails(&b)
		if !substituted {
			b.WriteString("(`explore -out DIR` writes the same file as `DIR/replay.py` beside `DIR/report.md`, to attach instead.)\n\n")
		}
		b.WriteString(replayCommands(r, t.Protocol, up))
	default:
		attach := "`explore -out DIR` writes it as `DIR/replay.py` beside `DIR/report.md`; the swapcheck commands below make it too"
		if substituted {
			attach = "the swapcheck commands below make it from this report's trace.json (`explore -out DIR` writes the replay of the gil trace, not this one)"
		}
		fmt.Fprintf(&b, "The Python replay (`replay.py`, %d bytes, sha256 `%s`) does not fit in an issue's body beside this report: attach it; %s.\n\n",
			script.size, script.sha256, attach)
		b.WriteString(replayCommands(r, t.Protocol, up))
	}
	if isMemory && !r.Config.Protocol.Dispatches && t.Protocol != "naive" && noScript == "" {
		fmt.Fprintf(&b, "\n(`--swap rendition` puts swapcheck's rendition of `%s` in place of the installed `swapped_cuda_module`, whose steps the trace follows; the race is in `kernelapi.py`'s atomics and shared arrays, which stay numba's own.)\n", t.Protocol)
	}
	b.WriteString("\nThe second way, in a checkout of swapcheck (Go): save the `trace.json` below, then replay it in the model (it prints the trace above)")
	if noScript == "" {
		b.WriteString(" and write the same `replay.py`")
	}
	b.WriteString(":\n\n")
	cmds := "go run ./cmd/explore -replay trace.json\n"
	if noScript == "" {
		cmds += "go run ./cmd/explore -replay trace.json -emit-python replay.py\n"
	}
	b.WriteString(fence("sh", cmds))
	if repro != "" && portable(repro) {
		fmt.Fprintf(&b, "\nIn a checkout of swapcheck, the search prints this trace again (its replay line): `%s`", repro)
		if strings.Contains(repro, "-scenario scenario.txt") {
			b.WriteString(" (`scenario.txt`: the scenario text above)")
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n")
	compact := *t
	compact.Steps, compact.Replay = nil, ""
	if compact.Corpus != "" {
		compact.Corpus = path.Base(compact.Corpus) // the corpus's directory is the reporter's
	}
	var js bytes.Buffer
	if err := compact.WriteJSON(&js); err != nil {
		return "", err
	}
	b.WriteString("<details><summary>trace.json</summary>\n\n")
	b.WriteString(fence("json", js.String()))
	b.WriteString("\n</details>\n")
	return b.String(), nil
}

// countUnreal counts the trace's switches CPython 3.11 cannot make.
func countUnreal(t *check.Trace) int {
	n := 0
	for _, s := range t.Steps {
		if s.UnrealSwitch {
			n++
		}
	}
	return n
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

// writeUserCode writes the scenario as the Python a user writes (each
// module and main.py), then in swapcheck's scenario format (text).
func writeUserCode(b *strings.Builder, sc *scenario.Scenario, text string) {
	for _, f := range pyreplay.UserCode(sc) {
		b.WriteString(fence("python", "# "+f.Name+"\n"+f.Text))
		b.WriteString("\n")
	}
	b.WriteString("In swapcheck's scenario format (`testdata/scenarios/README.md`):\n\n")
	b.WriteString(fence("text", text))
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
