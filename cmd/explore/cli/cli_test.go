package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
	"swapcheck/model"
	"swapcheck/variants"
)

// result is one in-process run of the command.
type result struct {
	code           int
	stdout, stderr string
}

func explore(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// summary is the part of the -json output the tests look at.
type summary struct {
	Protocol   string `json:"protocol"`
	Atomicity  string `json:"atomicity"`
	Verdict    string `json:"verdict"`
	Complete   bool   `json:"complete"`
	Executions int64  `json:"executions"`
	Stopped    string `json:"stopped"`
	Violation  *struct {
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		Schedule []int  `json:"schedule"`
	} `json:"violation"`
}

func exploreJSON(t *testing.T, args ...string) (int, summary) {
	t.Helper()
	r := explore(t, append(args, "-json")...)
	var s summary
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), "stdout of %v is not a JSON summary:\n%s\nstderr: %s", args, r.stdout, r.stderr)
	return r.code, s
}

// want is an expected outcome: exit status, verdict, and for a violation
// its kind ("" for any kind) and text its message must contain.
type want struct {
	code     int
	verdict  string
	kind     string
	contains []string
}

var verified = want{code: cli.ExitOK, verdict: "verified"}

func violation(kind string, contains ...string) want {
	return want{code: cli.ExitViolation, verdict: "violation", kind: kind, contains: contains}
}

func (w want) check(t *testing.T, code int, s summary) {
	t.Helper()
	require.Equal(t, w.verdict, s.Verdict)
	require.Equal(t, w.code, code)
	if w.verdict != "violation" {
		require.Nil(t, s.Violation)
		require.True(t, s.Complete, "a verified search is complete")
		require.Positive(t, s.Executions)
		return
	}
	require.NotNil(t, s.Violation)
	require.Contains(t, check.Kinds, s.Violation.Kind)
	if w.kind != "" {
		require.Equal(t, w.kind, s.Violation.Kind, "message: %s", s.Violation.Message)
	}
	for _, c := range w.contains {
		require.Contains(t, s.Violation.Message, c)
	}
	require.NotEmpty(t, s.Violation.Schedule)
}

// keyErrorFromDel is the refcount variants' 2-thread failure: the lock is
// fetched before the last exit deletes it, then deleted a second time.
var keyErrorFromDel = violation(check.KindException, "KeyError", "del _globals_locks[gid]")

func TestVerdicts(t *testing.T) {
	anyViolation := violation("")
	tests := []struct {
		name string
		args []string
		gil  want
		// other holds the outcomes of the other atomicity modes where
		// they differ from gil's.
		other map[model.Atomicity]want
	}{
		{"naive/2-threads", []string{"-protocol", "naive", "-threads", "2"}, violation(check.KindUseSawReal), nil},
		// Before gh-142495's fix both threads can also miss in
		// _globals_locks and hold different locks, which fails in more ways.
		{"refcount-unregistered/2-threads", []string{"-protocol", "refcount-unregistered", "-threads", "2"}, keyErrorFromDel,
			map[model.Atomicity]want{model.FreeThreadedOverwrite: anyViolation}},
		{"refcount-unregistered/3-threads", []string{"-protocol", "refcount-unregistered", "-threads", "3"}, anyViolation, nil},
		{"refcount-del/2-threads", []string{"-protocol", "refcount-del", "-threads", "2"}, keyErrorFromDel, nil},
		{"refcount-del/3-threads", []string{"-protocol", "refcount-del", "-threads", "3"}, anyViolation, nil},
		{"global-lock/2-threads", []string{"-protocol", "global-lock", "-threads", "2"}, verified, nil},
		{"global-lock/3-threads", []string{"-protocol", "global-lock", "-threads", "3"}, verified, nil},
		{"merged/2-threads", []string{"-protocol", "merged", "-threads", "2"}, verified, nil},
		{"merged/3-threads", []string{"-protocol", "merged", "-threads", "3"}, verified, nil},
		{"merged/2-threads-2-calls-2-modules", []string{"-protocol", "merged", "-threads", "2", "-calls", "2", "-modules", "2"}, verified, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/gil", func(t *testing.T) {
			t.Parallel()
			code, s := exploreJSON(t, tt.args...)
			tt.gil.check(t, code, s)
			require.Equal(t, "gil", s.Atomicity)
		})
		for _, a := range model.Atomicities() {
			if a == model.GIL {
				continue
			}
			t.Run(tt.name+"/"+a.String(), func(t *testing.T) {
				t.Parallel()
				w, ok := tt.other[a]
				if !ok {
					w = tt.gil
				}
				code, s := exploreJSON(t, append(tt.args, "-atomicity", a.String())...)
				w.check(t, code, s)
				require.Equal(t, a.String(), s.Atomicity)
			})
		}
	}
}

// traceStep is one step of a rendered trace: its number, whether it is the
// marked failing step, the thread whose column it is in, and that cell's
// lines.
type traceStep struct {
	n      int
	marked bool
	thread string
	lines  []string
}

// parseTrace reads the step table of a trace. The head names each
// thread's lane between rails ("| host       | T0 ..."); a row belongs
// to the lane whose rail its text follows: the rails before the text
// are the lanes to the left of its thread's.
func parseTrace(t *testing.T, trace string) []traceStep {
	t.Helper()
	lines := strings.Split(trace, "\n")
	sep := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "------+-") })
	require.Positive(t, sep, "no step table in the trace:\n%s", trace)
	markEnd := strings.IndexByte(lines[sep], '+') // the mark column's rail
	var names []string
	for _, f := range strings.Split(lines[sep-1], "|")[1:] {
		names = append(names, strings.TrimSpace(f))
	}
	var steps []traceStep
	for _, line := range lines[sep+1:] {
		if line == "" {
			break
		}
		require.Equal(t, byte('|'), line[markEnd], "a row without the mark column's rail: %q", line)
		mark := strings.TrimSpace(line[:markEnd])
		if mark != "" {
			s := traceStep{marked: strings.HasPrefix(mark, ">>")}
			var err error
			s.n, err = strconv.Atoi(strings.TrimLeft(mark, ">~"))
			require.NoError(t, err, "step mark %q", mark)
			steps = append(steps, s)
		}
		require.NotEmpty(t, steps, "a table row before the first step: %q", line)
		s := &steps[len(steps)-1]
		rest := line[markEnd+1:]
		text := strings.TrimLeft(rest, " |")
		lane := strings.Count(rest[:len(rest)-len(text)], "|")
		require.Less(t, lane, len(names), "a row past the last lane: %q", line)
		if s.thread == "" {
			s.thread = names[lane]
		} else {
			require.Equal(t, s.thread, names[lane], "step %d has lines in two lanes", s.n)
		}
		s.lines = append(s.lines, text)
	}
	return steps
}

func (s traceStep) has(text string) bool {
	return slices.ContainsFunc(s.lines, func(l string) bool { return strings.Contains(l, text) })
}

// TestNaiveTraceTellsTheStory checks that the naive counterexample reads as
// the seed's race: one thread collects nothing because the other already
// swapped, the other restores the real module, and the first one's body
// then sees it.
func TestNaiveTraceTellsTheStory(t *testing.T) {
	r := explore(t, "-protocol", "naive", "-threads", "2")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	steps := parseTrace(t, r.stdout)
	require.NotEmpty(t, steps)

	collect := slices.IndexFunc(steps, func(s traceStep) bool {
		return s.has("fn_globs.items()") && s.has("-> dev1.cuda is fake#1")
	})
	require.GreaterOrEqual(t, collect, 0, "no step where a collection reads dev1.cuda is fake#1:\n%s", r.stdout)
	victim := steps[collect].thread

	restore := slices.IndexFunc(steps[collect+1:], func(s traceStep) bool {
		return s.thread != victim && s.has("naive.py:20  fn_globs.update(orig)") && s.has("-> dev1.cuda = numba.cuda")
	})
	require.GreaterOrEqual(t, restore, 0, "no later step where another thread restores dev1.cuda:\n%s", r.stdout)
	restore += collect + 1

	last := steps[len(steps)-1]
	require.True(t, last.marked, "the last step is not marked >>:\n%s", r.stdout)
	for _, s := range steps[:len(steps)-1] {
		require.False(t, s.marked, "step %d is marked but is not the last", s.n)
	}
	require.Greater(t, len(steps)-1, restore)
	require.Equal(t, victim, last.thread, "the failing step is not the thread that collected nothing")
	require.True(t, last.has("-> cuda is numba.cuda"), "last step: %q", last.lines)
	require.True(t, last.has("!! use-saw-real"), "last step: %q", last.lines)
	require.Equal(t, len(steps), last.n)
	require.Contains(t, r.stdout, "\nreplay: go run ./cmd/explore -protocol naive -threads 2\n")
}

func readFiles(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		m[n] = string(b)
	}
	return m
}

var outFiles = []string{"trace.txt", "trace.json", "schedule.txt", "summary.json", "report.md"}

func TestOutAndReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"-protocol", "naive", "-threads", "2", "-out", dir}
	r := explore(t, args...)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	files := readFiles(t, dir, outFiles...)
	require.Equal(t, r.stdout, files["trace.txt"], "-out writes the trace it prints")
	require.True(t, strings.HasPrefix(files["schedule.txt"], "# swapcheck schedule"), files["schedule.txt"])
	require.Equal(t, "go run ./cmd/explore -replay "+filepath.Join(dir, "schedule.txt"), replayCommand(t, files["trace.txt"]))
	var s summary
	require.NoError(t, json.Unmarshal([]byte(files["summary.json"]), &s))
	require.Equal(t, "violation", s.Verdict)
	require.Equal(t, check.KindUseSawReal, s.Violation.Kind)

	t.Run("replay reproduces the trace", func(t *testing.T) {
		dir2 := filepath.Join(t.TempDir(), "replayed")
		r := explore(t, "-replay", filepath.Join(dir, "schedule.txt"), "-out", dir2)
		require.Equal(t, cli.ExitViolation, r.code, r.stderr)
		require.Equal(t, files["trace.txt"], readFiles(t, dir2, "trace.txt")["trace.txt"])
		require.Equal(t, files["trace.txt"], r.stdout)
	})

	t.Run("refuses to overwrite", func(t *testing.T) {
		before := map[string]os.FileInfo{}
		for _, n := range outFiles {
			fi, err := os.Stat(filepath.Join(dir, n))
			require.NoError(t, err)
			before[n] = fi
		}
		r := explore(t, args...)
		requireUsageError(t, r)
		require.Contains(t, r.stderr, "-force")
		require.Equal(t, files, readFiles(t, dir, outFiles...))
		for _, n := range outFiles {
			fi, err := os.Stat(filepath.Join(dir, n))
			require.NoError(t, err)
			require.Equal(t, before[n].ModTime(), fi.ModTime(), "%s was touched", n)
		}
	})

	t.Run("-force overwrites", func(t *testing.T) {
		for _, n := range outFiles {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("stale\n"), 0o644))
		}
		r := explore(t, append(args, "-force")...)
		require.Equal(t, cli.ExitViolation, r.code, r.stderr)
		again := readFiles(t, dir, outFiles...)
		require.Equal(t, files["trace.txt"], again["trace.txt"])
		require.Equal(t, files["schedule.txt"], again["schedule.txt"])
		require.NotEqual(t, "stale\n", again["summary.json"])
	})
}

func TestDeterministic(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"naive trace", []string{"-protocol", "naive", "-threads", "2"}},
		{"refcount-unregistered free-threaded trace", []string{"-protocol", "refcount-unregistered", "-threads", "3", "-atomicity", "free-threaded"}},
		{"merged verified", []string{"-protocol", "merged", "-threads", "3"}},
		{"random naive", []string{"-protocol", "naive", "-strategy", "random", "-seed", "7", "-runs", "50"}},
		{"random merged", []string{"-protocol", "merged", "-strategy", "random", "-seed", "7", "-runs", "50"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, second := explore(t, tt.args...), explore(t, tt.args...)
			require.Equal(t, first.code, second.code)
			require.NotEmpty(t, first.stdout)
			require.Equal(t, first.stdout, second.stdout)
		})
	}
}

// requireUsageError checks the shape of a bad-input failure: exit 2,
// nothing on stdout, one line on stderr starting "explore: ", and no Go
// panic.
func requireUsageError(t *testing.T, r result) {
	t.Helper()
	require.Equal(t, cli.ExitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	require.Empty(t, r.stdout)
	require.True(t, strings.HasPrefix(r.stderr, "explore: "), "stderr: %q", r.stderr)
	require.True(t, strings.HasSuffix(r.stderr, "\n"), "stderr: %q", r.stderr)
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "stderr is not one line: %q", r.stderr)
	require.NotContains(t, r.stderr, "panic")
	require.NotRegexp(t, `goroutine \d+ \[`, r.stderr, "a stack trace")
}

// validScenario is the default generated scenario, as a file.
const validScenario = `threads 2
module kernels cuda
module dev1 cuda
device f1 in dev1: use cuda.local
kernel: use cuda.threadIdx; call f1
`

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	good := write("good.txt", validScenario)

	// A real schedule file, and its header (everything up to the steps).
	out := filepath.Join(dir, "out")
	r := explore(t, "-protocol", "naive", "-out", out)
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	sched := filepath.Join(out, "schedule.txt")
	schedText := readFiles(t, out, "schedule.txt")["schedule.txt"]
	header := schedText[:strings.LastIndex(schedText, "steps")]
	steps := strings.Fields(schedText[len(header):])[1:]
	require.NotEmpty(t, steps)

	tests := []struct {
		name string
		args []string
		// stderr must contain this.
		says string
	}{
		{"unknown protocol", []string{"-protocol", "nope"}, `unknown protocol "nope"`},
		{"missing -protocol", []string{"-threads", "2"}, "missing -protocol"},
		{"no arguments", nil, "missing -protocol"},
		{"-threads 0", []string{"-protocol", "naive", "-threads", "0"}, "threads"},
		{"-threads 100000", []string{"-protocol", "naive", "-threads", "100000"}, "threads"},
		{"-calls -1", []string{"-protocol", "naive", "-calls", "-1"}, "calls"},
		{"-hosts 0", []string{"-protocol", "naive", "-hosts", "0"}, "hosts must be 1..3, got 0"},
		{"-hosts 4", []string{"-protocol", "naive", "-hosts", "4"}, "hosts must be 1..3, got 4"},
		{"-scenario with -host-calls", []string{"-protocol", "naive", "-scenario", good, "-host-calls"}, "-host-calls"},
		{"-hosts 2 on goroutines", []string{"-protocol", "naive", "-hosts", "2", "-backend", "goroutines", "-duration", "1s"}, "runs one host thread"},
		{"-atomicity foo", []string{"-protocol", "naive", "-atomicity", "foo"}, `atomicity "foo"`},
		{"-strategy foo", []string{"-protocol", "naive", "-strategy", "foo"}, `strategy "foo"`},
		{"-runs 0 with random", []string{"-protocol", "naive", "-strategy", "random", "-runs", "0"}, "-runs"},
		{"unknown flag", []string{"-protocol", "naive", "-bogus"}, "-bogus"},
		{"positional argument", []string{"-protocol", "naive", "extra"}, `"extra"`},
		{"missing -scenario file", []string{"-protocol", "naive", "-scenario", filepath.Join(dir, "absent.txt")}, "absent.txt"},
		{"-scenario with -threads", []string{"-protocol", "naive", "-scenario", good, "-threads", "3"}, "-threads"},
		{"missing -replay file", []string{"-replay", filepath.Join(dir, "absent-schedule.txt")}, "absent-schedule.txt"},
		{"-replay with -protocol", []string{"-replay", sched, "-protocol", "naive"}, "-protocol"},
		{"-atomics of an unknown operation", []string{"-protocol", "merged", "-atomics", "add,mul"}, "-atomics: unknown atomic operation mul"},
		{"-fix unknown", []string{"-protocol", "merged", "-atomics", "add", "-fix", "faster"}, `-fix: unknown fix "faster"`},
		{"-scenario with -atomics", []string{"-protocol", "naive", "-scenario", good, "-atomics", "add"}, "-atomics"},
	}
	badScenarios := []struct{ name, text, says string }{
		{"unknown directive", "threads 2\nmodule kernels cuda\nwarps 4\nkernel: use cuda.threadIdx\n", `line 3: unknown directive "warps"`},
		{"bad number", "threads two\nmodule kernels cuda\nkernel: use cuda.threadIdx\n", "line 1: threads takes a whole number"},
		{"use of an unknown name", "module kernels cuda\nmodule dev1 cuda\ndevice f in dev1: use cu.local\nkernel: call f\n", "line 3: device f: cu is not a global of module dev1"},
		{"call of an unknown function", "module kernels cuda\nkernel: call g\n", "line 2: kernel: call g: no such device function"},
		{"kernel before module", "kernel: use cuda.threadIdx\nmodule kernels cuda\n", "line 1: kernel before any module"},
		{"call cycle", "module kernels cuda\nmodule dev1 cuda\ndevice f in dev1: call g\ndevice g in dev1: call f\nkernel: call f\n", "cycle"},
		{"device in an unknown module", "module kernels cuda\ndevice f in nowhere: use cuda.local\nkernel: call f\n", "line 2: device f: no module nowhere"},
		{"no kernel", "module kernels cuda\n", "no kernel line"},
		{"no hosts", "hosts 0\nmodule kernels cuda\nkernel: use cuda.threadIdx\n", "line 1: hosts must be 1..3, got 0"},
		{"host call of an unknown function", "module kernels cuda\nkernel: use cuda.threadIdx\nhost: launch; call g\n", "line 3: host: call g: no such device function"},
		{"empty file", "", "no module"},
		{"too many threads", "threads 1025\nmodule kernels cuda\nkernel: use cuda.threadIdx\n", "threads must be 1..1024"},
		{"unknown atomic operation", "array a 1\nmodule kernels cuda\nkernel: atomic.mul a 0 1\n", "line 3: kernel: unknown atomic operation mul"},
		{"atomic index outside the array", "array a 2\nmodule kernels cuda\nkernel: atomic.add a 2 1\n", "line 3: kernel: atomic.add: index 2 is outside array a of 2 elements"},
		{"atomic on no array", "module kernels cuda\nkernel: atomic.add b 0 1\n", "line 2: kernel: atomic.add: no array b"},
		{"shared.array of size 0", "module kernels cuda\nkernel: shared.array s 0\n", "line 2: kernel: shared.array s of size 0 is the launch's dynamic shared memory"},
		{"store with no shared array", "module kernels cuda\nkernel: store s 0 1\n", "line 2: kernel: store s: no shared array s before it (allocate one: shared.array s SIZE)"},
		{"load outside the shared array", "module kernels cuda\nkernel: shared.array s 2; load s 2\n", "line 2: kernel: load s: index 2 is outside the shared array of 2 elements"},
		{"store of a shared array in a branch", "module kernels cuda\nkernel: if tid == 0: shared.array s 2; end; store s 0 1\n", "line 2: kernel: store s: no shared array s before it"},
		{"atomic in a device function", "array a 1\nmodule kernels cuda\ndevice f in kernels: atomic.add a 0 1\nkernel: call f\n", "device function f: atomics and shared.array are modelled in the kernel's body only"},
		{"a line over 64 KiB", "threads 2\nmodule kernels cuda\n# " + strings.Repeat("x", 1<<16) + "\nkernel: use cuda.threadIdx\n", "line 3: longer than 65536 bytes"},
	}
	for _, b := range badScenarios {
		p := write("scenario-"+strings.ReplaceAll(b.name, " ", "-")+".txt", b.text)
		tests = append(tests, struct {
			name string
			args []string
			says string
		}{"malformed scenario/" + b.name, []string{"-protocol", "naive", "-scenario", p}, b.says})
	}
	badSchedules := []struct{ name, text, says string }{
		{"missing protocol line", strings.Replace(schedText, "protocol naive\n", "", 1), "no protocol line"},
		{"unknown protocol", strings.Replace(schedText, "protocol naive\n", "protocol nope\n", 1), `unknown protocol "nope"`},
		{"thread not runnable", header + "steps 1\n", "step 1: thread 1 is not runnable"},
		{"no such thread", header + "steps 0 9\n", "thread 9 is not runnable"},
		{"steps end early", header + "steps " + strings.Join(steps[:3], " ") + "\n", "the schedule ends after 3 steps"},
		{"steps go on after the end", header + "steps " + strings.Join(steps, " ") + " 2 2\n", "2 more"},
		{"negative step", header + "steps 0 -1\n", `step "-1" is not a thread number`},
		{"no steps line", header, "no steps line"},
		{"no end of scenario", "protocol naive\natomicity gil\nscenario\n    threads 2\n", `no closing "end"`},
		{"malformed scenario block", strings.Replace(schedText, "threads 2", "threads x", 1), "scenario block: line 1"},
		{"garbage", "hello world\n\x00\x01\xff\n", `unknown directive "hello"`},
		{"protocol given twice", strings.Replace(schedText, "protocol naive\n", "protocol naive\nprotocol merged\n", 1), "protocol given twice (first on line 3)"},
		{"another format", strings.Replace(schedText, "\nformat 2 ", "\nformat 3 ", 1), "the schedule is of format 3"},
		{"a line over the bound", header + "# " + strings.Repeat("x", 1<<26) + "\n" + "steps " + strings.Join(steps, " ") + "\n", "longer than"},
		{"empty", "", "no protocol line"},
	}
	for _, b := range badSchedules {
		p := write("schedule-"+strings.ReplaceAll(b.name, " ", "-")+".txt", b.text)
		tests = append(tests, struct {
			name string
			args []string
			says string
		}{"malformed schedule/" + b.name, []string{"-replay", p}, b.says})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, tt.args...)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, tt.says)
		})
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		stopped string
	}{
		// proposed: merged's proof over critical sections is one execution
		{"-max-executions 3", []string{"-protocol", "proposed", "-threads", "3", "-max-executions", "3"}, "max-executions 3"},
		// proposed with 64 threads: the exhaustive search (por, 5,278,071
		// steps) takes far longer than one poll of the stop function,
		// whatever the machine and its clock.
		{"-timeout 1ns", []string{"-protocol", "proposed", "-threads", "64", "-timeout", "1ns"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, s := exploreJSON(t, tt.args...)
			require.Equal(t, cli.ExitIncomplete, code)
			require.Equal(t, "incomplete", s.Verdict)
			require.False(t, s.Complete)
			require.Nil(t, s.Violation)
			require.NotEmpty(t, s.Stopped)
			require.Contains(t, s.Stopped, tt.stopped)
		})
	}
	t.Run("human output says nothing is proved", func(t *testing.T) {
		r := explore(t, "-protocol", "proposed", "-threads", "3", "-max-executions", "3")
		require.Equal(t, cli.ExitIncomplete, r.code)
		require.Contains(t, r.stdout, "incomplete")
		require.Contains(t, r.stdout, "nothing is proved")
	})
}

func TestList(t *testing.T) {
	r := explore(t, "-list")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	for _, v := range variants.All() {
		require.Regexp(t, `(?m)^  `+v.Protocol.Name+` .*; expected `+v.Expected.String()+`\)$`, r.stdout)
	}
	for _, k := range check.Kinds {
		require.Contains(t, r.stdout, k)
	}
	for _, a := range model.Atomicities() {
		require.Regexp(t, `(?m)^  `+a.String()+` +`+regexp.QuoteMeta(a.Doc())+`$`, r.stdout)
	}
}

// TestTraceMatchesGolden checks that the command prints the golden traces
// of package check byte for byte: the CLI and the golden files share one
// rendering. Refresh them with "go test ./check -run TestGolden -update".
func TestTraceMatchesGolden(t *testing.T) {
	tests := []struct{ golden, args string }{
		{"naive-gil-2-threads", "-strategy dfs -protocol naive -threads 2"},
		{"refcount-del-gil-2-threads", "-strategy dfs -protocol refcount-del -threads 2"},
		{"refcount-unregistered-free-threaded-overwrite-2-threads", "-strategy dfs -atomicity free-threaded-overwrite -protocol refcount-unregistered -threads 2"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("../../../check/testdata/golden", tt.golden+".txt"))
			require.NoError(t, err)
			r := explore(t, strings.Fields(tt.args)...)
			require.Equal(t, cli.ExitViolation, r.code, r.stderr)
			if got := r.stdout; got != string(want) {
				w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
				i := 0
				for i < len(w) && i < len(g) && w[i] == g[i] {
					i++
				}
				line := func(ls []string) string {
					if i < len(ls) {
						return strconv.Quote(ls[i])
					}
					return "(end of text)"
				}
				t.Fatalf("explore %s no longer prints check/testdata/golden/%s.txt; first difference at line %d:\n\tgolden: %s\n\tnow:    %s\nIf the trace change is intended: go test ./check -run TestGolden -update",
					tt.args, tt.golden, i+1, line(w), line(g))
			}
		})
	}
}

// Besides the counts, stderr says the preemptions per execution and the
// peak memory; a sequential search's preemptions are the same every run.
func TestStderrSummary(t *testing.T) {
	args := []string{"-protocol", "merged", "-threads", "2", "-strategy", "dfs", "-workers", "1"}
	first := explore(t, args...)
	require.Equal(t, cli.ExitOK, first.code, first.stderr)
	require.Regexp(t, `(?m)^explore: preemptions per execution searched \(not the trace's, which the trace counts\): min 0, mean [0-9.]+, max [1-9][0-9]*; visited set: 483 states stored, [1-9][0-9]* steps matched one, [0-9.]+ MiB(; peak RSS [0-9.]+ MiB)?$`, first.stderr)
	line := func(stderr string) string {
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "explore: preemptions") {
				return strings.Split(l, ";")[0]
			}
		}
		return ""
	}
	require.Equal(t, line(first.stderr), line(explore(t, args...).stderr))
}

// pct prints its per-run guarantee for the scenario, 1/(n*k^(d-1)), found
// a violation or not: with the verdict on stdout when it found none, on
// stderr beside the trace when it did or beside the JSON summary, which
// holds it too.
func TestPCTPrintsItsGuarantee(t *testing.T) {
	guarantee := `pct: each run finds a bug of depth 3 with probability at least [0-9.e+-]+ \(1/\(n\*k\^\(d-1\)\), n=3 threads, k=[1-9][0-9]* steps\)`
	none := explore(t, "-protocol", "merged", "-strategy", "pct", "-runs", "20", "-quiet")
	require.Equal(t, cli.ExitOK, none.code, none.stderr)
	require.Regexp(t, "(?m)^"+guarantee+"$", none.stdout)
	found := explore(t, "-protocol", "naive", "-strategy", "pct", "-runs", "200", "-quiet")
	require.Equal(t, cli.ExitViolation, found.code, found.stderr)
	require.Regexp(t, "(?m)^explore: "+guarantee+"$", found.stderr)
	require.NotContains(t, found.stdout, "pct: each run")
	js := explore(t, "-protocol", "naive", "-strategy", "pct", "-runs", "200", "-quiet", "-json")
	var sum struct {
		PCTGuarantee float64 `json:"pct_guarantee"`
	}
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &sum))
	require.Greater(t, sum.PCTGuarantee, 0.0)
	require.Regexp(t, "(?m)^explore: "+guarantee+"$", js.stderr)
	other := explore(t, "-protocol", "naive", "-strategy", "random", "-runs", "200", "-quiet")
	require.NotContains(t, other.stdout+other.stderr, "pct: each run")
}

// dpor reports its reduction: its executions against every interleaving,
// counted by a stateful pass, on stderr and in the summary; on merged with
// 2 threads, 145 against 3,970,596. No other strategy, and no dpor search
// that was not verified, counts them.
func TestDPORReportsItsReduction(t *testing.T) {
	run := explore(t, "-protocol", "merged", "-threads", "2", "-strategy", "dpor", "-quiet")
	require.Equal(t, cli.ExitOK, run.code, run.stderr)
	require.Regexp(t, `(?m)^merged \(gil\): verified: the dpor search ran an execution from every class of interleavings that differ only in the order of independent steps: 145 executions, [0-9]+ steps$`, run.stdout)
	require.Regexp(t, `(?m)^explore: dpor's reduction: 145 executions, of 3\.97e\+06 interleavings in all \(counted over the reachable states\): 27383 times fewer$`, run.stderr)
	js := explore(t, "-protocol", "merged", "-threads", "2", "-strategy", "dpor", "-quiet", "-json")
	var sum struct {
		Executions    int64   `json:"executions"`
		Interleavings float64 `json:"interleavings"`
	}
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &sum))
	require.Equal(t, int64(145), sum.Executions)
	require.Equal(t, 3970596.0, sum.Interleavings)
	one := explore(t, "-protocol", "merged", "-threads", "1", "-strategy", "dpor", "-quiet")
	require.Contains(t, one.stderr, "dpor's reduction: 1 execution, of 1 interleaving in all")
	for _, args := range [][]string{
		{"-protocol", "merged", "-threads", "2", "-strategy", "dfs"},
		{"-protocol", "naive", "-strategy", "dpor"}, // a violation
	} {
		other := explore(t, append(args, "-quiet")...)
		require.NotContains(t, other.stderr, "reduction:", "%v", args)
	}
}

// TestOutUnwritable: a -out directory the results cannot be written to is
// refused before the search (whose verdict would otherwise be lost), with
// one line naming -out.
func TestOutUnwritable(t *testing.T) {
	type dirCase struct{ name, dir string }
	var cases []dirCase
	if _, err := os.Stat("/proc/self"); err == nil {
		cases = append(cases, dirCase{"a directory of /proc (even root cannot write there)", "/proc/self"})
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(t.TempDir(), "read-only")
		require.NoError(t, os.Mkdir(ro, 0o555))
		cases = append(cases, dirCase{"a read-only directory", ro})
	}
	if len(cases) == 0 {
		t.Skip("no unwritable directory here: running as root without /proc")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// the search would print a counterexample and say so on stderr
			r := explore(t, "-protocol", "naive", "-out", c.dir)
			requireUsageError(t, r)
			require.Contains(t, r.stderr, "explore: -out "+c.dir+": cannot write there: ")
		})
	}
}

// TestCountsInTheRightNumber: one preemption is "1 preemption".
func TestCountsInTheRightNumber(t *testing.T) {
	r := explore(t, "-protocol", "refcount-del", "-quiet")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Regexp(t, `(?m)^\d+ steps \(1 preemption\), each one`, r.stdout)
	require.NotContains(t, r.stdout, "1 preemptions")

	// auto's plan, on stderr (with an interrupt, where auto's states
	// search finds a counterexample of one preemption), and a bounded
	// search's coverage.
	r = explore(t, "-protocol", "refcount-unregistered", "-faults", "interrupt")
	require.Equal(t, cli.ExitViolation, r.code, r.stderr)
	require.Contains(t, r.stderr, "violation with 1 preemption\n")
	require.Contains(t, r.stderr, "bounded (up to 1 preemption): the fewest, 1")
	r = explore(t, "-protocol", "naive", "-strategy", "bounded", "-preemptions", "1")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout+r.stderr, "all schedules with at most 1 preemption)")
	require.NotContains(t, r.stdout+r.stderr, "1 preemptions")
}

// TestPCTDeepDepthKeepsItsGuarantee: a depth whose guarantee is below what
// a float64 holds still prints it, as a power of ten, and records its
// logarithm in the summary.
func TestPCTDeepDepthKeepsItsGuarantee(t *testing.T) {
	r := explore(t, "-protocol", "merged", "-strategy", "pct", "-depth", "100000", "-runs", "2", "-quiet")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Regexp(t, `(?m)^pct: each run finds a bug of depth 100000 with probability at least 10\^-[0-9]+\.[0-9] \(1/\(n\*k\^\(d-1\)\), n=3 threads, k=[0-9]+ steps\)$`, r.stdout)
	js := explore(t, "-protocol", "merged", "-strategy", "pct", "-depth", "100000", "-runs", "2", "-quiet", "-json")
	var sum struct {
		Log10 float64 `json:"pct_guarantee_log10"`
	}
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &sum))
	require.Less(t, sum.Log10, -1000.0)
}

// TestScenarioFileForGoroutines: a scenario file takes CUDA's block
// bound on the goroutine backend, as -threads does; a -source search
// keeps its own.
func TestScenarioFileForGoroutines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wide.txt")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(validScenario, "threads 2", "threads 1024", 1)), 0o644))
	r := explore(t, "-backend", "goroutines", "-protocol", "merged", "-scenario", p, "-max-calls", "2000", "-json")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, `"threads": 1024`)
	search := explore(t, "-source", "testdata/python/merged.py", "-scenario", p)
	require.Equal(t, cli.ExitUsage, search.code)
	require.Contains(t, search.stderr, "threads must be 1..64")
}

// TestVerifiedNamesItsWorld: a verified verdict says which world it
// covers (hosts, launches, blocks, threads, faults and their bound,
// atomicity), and a stateful search's fault count says it counts stored
// end states.
func TestVerifiedNamesItsWorld(t *testing.T) {
	r := explore(t, "-protocol", "proposed", "-threads", "2", "-hosts", "2", "-faults", "interrupt", "-atomicity", "free-threaded")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "proposed (free-threaded): the world verified: 2 hosts, each making 1 launch of 1 block of 2 GPU threads; faults interrupt, at most 1 per execution; atomicity free-threaded\n")
	require.Regexp(t, `(?m)^explore: faults interrupt \(at most 1 per execution\): \d+ end states? stored first reached through one$`, r.stderr)
	r = explore(t, "-protocol", "merged", "-threads", "2")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "merged (gil): the world verified: 1 host, each making 1 launch of 1 block of 2 GPU threads; no faults; atomicity gil\n")
}
