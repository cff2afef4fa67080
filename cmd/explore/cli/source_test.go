package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/cmd/explore/cli"
	"swapcheck/internal/testenv"
)

// The -source tests run CPython through a PATH of their own: a directory
// holding python3.11 (or python3.12) linked to the machine's, with HOME
// empty and no PYENV_ROOT, so that -python 3.11 finds it at once (the
// machine's PATH and pyenv hold many interpreters, each probed, seconds in
// all) and the rerun line says -python 3.11 on every machine. A missing
// interpreter skips the test, saying so (fails it under
// SWAPCHECK_REQUIRE_PYTHON), as pyvm's tests do.

// pythonOnly sets the environment so that the only Python found is the
// machine's CPython of each of versions, as pythonVERSION on PATH.
func pythonOnly(t *testing.T, versions ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, v := range versions {
		require.NoError(t, os.Symlink(testenv.PythonVersion(t, v), filepath.Join(dir, "python"+v)))
	}
	noPython(t, dir)
}

// noPython sets an environment whose PATH is dir and that has no pyenv.
func noPython(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("PATH", dir)
	t.Setenv("PYENV_ROOT", "")
	t.Setenv("HOME", t.TempDir())
}

// fakePython writes, in dir, a program called name that answers pysource's
// probe as a CPython of version v (major, minor, micro) would.
func fakePython(t *testing.T, dir, name string, v [3]int) {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho '{\"interpreter\": {\"version\": [%d, %d, %d], \"implementation\": \"cpython\", \"gil_disabled\": false, \"executable\": \"/fake/%s\"}}'\n",
		v[0], v[1], v[2], name)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
}

// repoRoot makes the repository's root the working directory, as the
// README's commands run, and returns this package's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	here, err := os.Getwd()
	require.NoError(t, err)
	t.Chdir("../../..")
	return here
}

// micro is where the output names the interpreter's bug-fix release: a
// golden file holds "3.12.x", whatever release the machine has (pyvm
// runs the bytecode of a feature version, which its releases share).
var micro = regexp.MustCompile(`CPython (3\.\d+)\.\d+`)

// interpreterField is where trace.json names the release ("3.12.1").
var interpreterField = regexp.MustCompile(`"interpreter": "(3\.\d+)\.\d+"`)

// TestSourceGolden: -source's output for a violation (naive.py: the
// trace, every step of the file's code with its lines and opcodes) and
// for a verification (merged.py: the world it covers), and the
// trace.json -out writes, are the golden files', byte for byte but for
// the micro release, with 3.11's and with 3.12's bytecode (rewrite them
// with -update, and review the diff). By default each file runs with one
// of the versions, taken in turn (testenv.Rotate: naive with 3.11's,
// merged with 3.12's); SWAPCHECK_LONG=1, and -update, run each with both.
func TestSourceGolden(t *testing.T) {
	versions := []string{"3.11", "3.12"}
	for k, c := range []struct {
		file string
		code int
	}{
		{"naive", cli.ExitViolation},
		{"merged", cli.ExitOK},
	} {
		which := testenv.Rotate(k, len(versions))
		if *update {
			which = []int{0, 1}
		}
		for _, i := range which {
			v := versions[i]
			t.Run(c.file+"-"+v, func(t *testing.T) {
				pythonOnly(t, v)
				here := repoRoot(t)
				out := filepath.Join(t.TempDir(), "out")
				r := explore(t, "-source", "testdata/python/"+c.file+".py", "-python", v, "-out", out)
				require.Equal(t, c.code, r.code, "stderr: %s", r.stderr)
				lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
				require.Len(t, lines, 2, "stderr: the interpreter, then the counts: %q", r.stderr)
				require.Regexp(t, `^explore: -source: CPython `+regexp.QuoteMeta(v)+`\.\d+ at .*python`+regexp.QuoteMeta(v)+`.*, found on PATH: -python `+regexp.QuoteMeta(v)+`$`, lines[0])

				for i, line := range strings.Split(r.stdout, "\n") {
					require.LessOrEqual(t, utf8.RuneCountInString(line), check.TextWidth, "line %d is wider than a trace: %q", i+1, line)
				}
				js, err := os.ReadFile(filepath.Join(out, "trace.json"))
				require.NoError(t, err)
				for _, g := range []struct{ got, file string }{
					{micro.ReplaceAllString(r.stdout, "CPython $1.x"), c.file + "-" + v + ".txt"},
					{micro.ReplaceAllString(interpreterField.ReplaceAllString(string(js), `"interpreter": "$1.x"`), "CPython $1.x"), c.file + "-" + v + ".trace.json"},
				} {
					golden := filepath.Join(here, "testdata", "source", g.file)
					if *update {
						require.NoError(t, os.WriteFile(golden, []byte(g.got), 0o644))
						t.Logf("rewrote %s: review the diff", golden)
						continue
					}
					want, err := os.ReadFile(golden)
					require.NoError(t, err, "rewrite it with go test ./cmd/explore/cli -run TestSourceGolden -update")
					require.Equal(t, string(want), g.got, "-source's output changed: if that is right, rewrite %s with -update", golden)
				}
			})
		}
	}
}

// TestSourceVerdicts: each outcome of -source exits as the model's search
// does (0 verified, 1 violation, 3 incomplete), under each atomicity mode;
// a model gap (an object of the file's own in the module) and a cut search are incomplete,
// never verified, and say what they covered.
func TestSourceVerdicts(t *testing.T) {
	pythonOnly(t, "3.11")
	repoRoot(t)
	tests := []struct {
		name string
		args []string
		code int
		says []string
	}{
		{"verified, gil", []string{"-source", "testdata/python/merged.py"}, cli.ExitOK, []string{
			"verdict: verified: the search covered every reachable state",
			"the world verified: 1 host, 1 launch of 1 block of 2 GPU threads; no faults;\n    atomicity gil; CPython 3.11.",
			"not checked: linearizability",
		}},
		{"verified, gil-breaker", []string{"-source", "testdata/python/merged.py", "-atomicity", "gil-breaker"}, cli.ExitOK, []string{"verdict: verified", "atomicity gil-breaker; CPython 3.11."}},
		{"verified, free-threaded", []string{"-source", "testdata/python/merged.py", "-atomicity", "free-threaded"}, cli.ExitOK, []string{"verdict: verified"}},
		{"verified, free-threaded-overwrite", []string{"-source", "testdata/python/merged.py", "-atomicity", "free-threaded-overwrite"}, cli.ExitOK, []string{"verdict: verified"}},
		{"violation, nested calls in two modules", []string{"-source", "testdata/python/naive.py", "-modules", "2", "-calls", "2", "-nest", "1"}, cli.ExitViolation, []string{"verdict: violation use-saw-real", "rerun: go run ./cmd/explore -calls 2 -modules 2 -nest 1 -python 3.11 -source testdata/python/naive.py"}},
		{"violation, gil-breaker", []string{"-source", "testdata/python/naive.py", "-atomicity", "gil-breaker"}, cli.ExitViolation, []string{"verdict: violation use-saw-real", "eval-breaker check of CPython 3.11"}},
		{"violation, a scenario file", []string{"-source", "testdata/python/refcount_del.py:swapped_cuda_module", "-scenario", "testdata/scenarios/nested-two-modules.txt"}, cli.ExitViolation, []string{"source testdata/python/refcount_del.py, function swapped_cuda_module", "verdict: violation"}},
		{"an exception in the host's __enter__", []string{"-source", "cmd/explore/cli/testdata/source/raises.py"}, cli.ExitViolation, []string{
			"verdict: violation exception",
			"host: TypeError raised by the swap machinery (its __enter__): TypeError: 'function' object is not iterable",
			" step | host\n------+---",
			"raises.py:10  names = [*fn]",
			"!! exception",
		}},
		{"verified, raise faults", []string{"-source", "testdata/python/merged.py", "-faults", "raise"}, cli.ExitOK, []string{
			"verdict: verified",
			"no transactions (a fault lands between the",
			"the world verified: 1 host, 1 launch of 1 block of 2 GPU threads; faults raise (at most 1 per execution;",
		}},
		{"violation, a raising kernel", []string{"-source", "testdata/python/merged.py", "-scenario", "testdata/scenarios/aborted-launch.txt"}, cli.ExitViolation, []string{
			"verdict: violation use-saw-none",
			"dev1.cuda is None, not fake#2",
			"-> L1.B0.T0 died with KernelError: t_other.abort = True",
			"kernel.py except Exception: (the launch raised)",
		}},
		{"violation, a raise fault", []string{"-source", "testdata/python/refcount_del.py", "-faults", "raise", "-max-faults", "2"}, cli.ExitViolation, []string{"verdict: violation exception"}},
		{"violation, an interrupt", []string{"-source", "testdata/python/merged.py", "-faults", "interrupt"}, cli.ExitViolation, []string{
			"verdict: violation left-swapped",
			"SIGINT KeyboardInterrupt",
			"kernel.py except Exception: (the launch raised)",
		}},
		{"no violation under interrupts is no proof", []string{"-source", "source/testdata/one_thread.py", "-threads", "1", "-faults", "interrupt"}, cli.ExitIncomplete, []string{
			"verdict: incomplete: no violation in",
			"but the interrupt lands here only at the eval-breaker checks of the file's own code",
			"faults interrupt (at most 1 per execution;",
		}},
		{"model gap", []string{"-source", "source/testdata/own_object.py"}, cli.ExitIncomplete, []string{"verdict: incomplete: the search met what -source cannot model (model-gap)", "nothing is proved", "T0: kernels.cuda is <_Stand object>"}},
		{"the dispatcher", []string{"-source", "testdata/python/proposed.py", "-thread-context"}, cli.ExitOK, []string{"verdict: verified"}},
		{"step budget", []string{"-source", "testdata/python/merged.py", "-max-depth", "5"}, cli.ExitIncomplete, []string{"verdict: incomplete: the search stopped (an execution reached the step budget of 5)", "nothing is proved", "the world searched: 1 host"}},
		// a search is polled every sched.PollEvery steps: this one takes
		// tens of thousands (a smaller one can end verified before its
		// first poll, as the listing's does)
		{"timeout", []string{"-source", "testdata/python/merged.py", "-threads", "8", "-calls", "2", "-modules", "2", "-timeout", "1ns"}, cli.ExitIncomplete, []string{"verdict: incomplete: the search stopped (-timeout 1ns reached)", "of 8 GPU threads"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := explore(t, append(tt.args, "-python", "3.11")...)
			require.Equal(t, tt.code, r.code, "stdout:\n%s\nstderr: %s", r.stdout, r.stderr)
			flat := strings.Join(strings.Fields(r.stdout), " ") // as if no line were wrapped
			for _, s := range tt.says {
				require.Contains(t, flat, strings.Join(strings.Fields(s), " "), "stdout:\n%s", r.stdout)
			}
			if tt.code != cli.ExitOK {
				require.NotContains(t, r.stdout, "verified")
			}
		})
	}
}

// TestSourceRefusesBadInput: every mistake in what -source is given is
// one line on stderr and exit 2, before any search: pysource's, pyvm's
// and package source's own messages.
func TestSourceRefusesBadInput(t *testing.T) {
	tmp := t.TempDir()
	syntax := filepath.Join(tmp, "bad.py")
	require.NoError(t, os.WriteFile(syntax, []byte("def swapped_cuda_module(:\n    pass\n"), 0o644))
	unsupported, err := filepath.Abs("testdata/source/unsupported.py")
	require.NoError(t, err)
	naive, err := filepath.Abs("../../../testdata/python/naive.py")
	require.NoError(t, err)
	fake := t.TempDir()
	fakePython(t, fake, "python3", [3]int{2, 7, 18})
	fakePython(t, fake, "python3.11", [3]int{3, 10, 13}) // a 3.10 under another name

	tests := []struct {
		name   string
		env    string // "": a real CPython 3.11; "fake": fakePython's; "none": no Python
		args   []string
		says   string
		regexp string
	}{
		{name: "no such file", args: []string{"-source", filepath.Join(tmp, "missing.py")}, says: "missing.py: no such file"},
		{name: "a directory", args: []string{"-source", tmp}, says: "is a directory, not a Python file"},
		{name: "no such function", args: []string{"-source", naive + ":nothere"}, says: "naive.py: no top-level function nothere"},
		{name: "no swapped_cuda_module", args: []string{"-source", unsupported + ":swapped"}, says: "no top-level function swapped"},
		{name: "a syntax error", args: []string{"-source", syntax}, regexp: `bad\.py:1: SyntaxError: .+`},
		{name: "an unsupported construct", args: []string{"-source", unsupported}, says: "unsupported.py:14: opcode BUILD_SET is not supported (python 3.11)"},
		{name: "a scenario it does not run", args: []string{"-source", naive, "-atomics", "add"}, says: "-source does not run this scenario yet: atomics (package model runs it for the built-in variants)"},
		{name: "faults in a scenario file", args: []string{"-source", naive, "-scenario", "../../../testdata/scenarios/two-hosts-interrupt.txt"}, says: "-source does not run this scenario yet: interrupt faults with several hosts"},
		{name: "-faults interrupt -hosts 2", args: []string{"-source", naive, "-faults", "interrupt", "-hosts", "2"}, says: "-source does not run this scenario yet: interrupt faults with several hosts"},
		{name: "-max-faults without -faults", args: []string{"-source", naive, "-max-faults", "2"}, says: "-max-faults without faults"},
		{name: "too many threads", args: []string{"-source", naive, "-threads", "100"}, says: "-threads 100: -source searches take at most"},
		{name: "-scenario and a shape flag", args: []string{"-source", naive, "-scenario", "x.txt", "-threads", "3"}, says: "-scenario and -threads both given"},
		{name: "an unknown atomicity", args: []string{"-source", naive, "-atomicity", "none"}, says: `unknown atomicity "none"`},
		{name: "-python a path that is not there", args: []string{"-source", naive, "-python", filepath.Join(tmp, "python3")}, says: "does not run as a Python interpreter"},
		{name: "-python a version not supported", env: "fake", args: []string{"-source", naive, "-python", "2.7"}, says: "CPython 2.7.18 at " + filepath.Join(fake, "python3") + " is not supported (supported: CPython 3.11, 3.12, 3.13)"},
		{name: "-python a path to a version not supported", env: "fake", args: []string{"-source", naive, "-python", filepath.Join(fake, "python3.11")}, says: "CPython 3.10.13 at " + filepath.Join(fake, "python3.11") + " is not supported"},
		{name: "-python a version not found", env: "fake", args: []string{"-source", naive, "-python", "3.12"}, says: "no Python 3.12 found"},
		{name: "no supported Python", env: "fake", args: []string{"-source", naive}, says: "no supported Python (3.11, 3.12, 3.13) found"},
		{name: "no Python at all", env: "none", args: []string{"-source", naive}, says: "no supported Python (3.11, 3.12, 3.13) found (looked in PATH (python3, python3.13, python3.12, python3.11); found: none); pass -python PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			switch tt.env {
			case "":
				py := testenv.PythonVersion(t, "3.11")
				if !slices.Contains(args, "-python") {
					args = append(args, "-python", py)
				}
			case "fake":
				noPython(t, fake)
			case "none":
				noPython(t, t.TempDir())
			}
			r := explore(t, args...)
			requireUsageError(t, r)
			if tt.says != "" {
				require.Contains(t, r.stderr, tt.says)
			}
			if tt.regexp != "" {
				require.Regexp(t, tt.regexp, r.stderr)
			}
		})
	}
}
