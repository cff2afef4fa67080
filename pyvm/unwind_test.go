package pyvm_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/pyvm"
)

// TestInterruptUnwindsAsCPython: what a KeyboardInterrupt that lands at an
// eval-breaker check of a variant's swapped_cuda_module leaves behind (the
// variant's locks held, the device module's cuda) is what CPython leaves,
// for every landing CPython showed in testdata/cpython/interrupt_unwind.py
// (its golden per version): the exception-table lookup of the landing
// differs by version (3.11 and 3.12 look up the instruction before a
// backward jump's target, 3.13 the jump itself, which in 3.13.0 leaves the
// lock of a with around an inlined comprehension held). The golden is
// checked against the interpreter found, when its version is the golden's.
func TestInterruptUnwindsAsCPython(t *testing.T) {
	for _, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			path := filepath.Join("..", "testdata", "cpython", "interrupt-unwind-"+v.String()+".golden.txt")
			head, golden := readUnwindGolden(t, path)
			in := interpreter(t, v)
			out, err := exec.Command(in.Path, "-I", "../testdata/cpython/interrupt_unwind.py", "--check").Output()
			require.NoError(t, err, "interrupt_unwind.py on %s", in.Path)
			gotHead, _, _ := strings.Cut(string(out), "\n")
			if gotHead == head {
				require.Equal(t, readFile(t, path), string(out), "%s is stale: rerun testdata/cpython/interrupt_unwind.py > %s", path, path)
			} else {
				t.Logf("%s was recorded on %s; this interpreter is %s: the golden is not rechecked", path, head, gotHead)
			}
			files, err := filepath.Glob("../testdata/python/*.py")
			require.NoError(t, err)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".py")
				if why, ok := notInterpreted[name]; ok {
					t.Logf("%s: not interpreted: %s", name, why)
					continue
				}
				want := golden[name]
				require.NotEmpty(t, want, "the golden has no landing in %s", name)
				got := unwindRun(t, v, f)
				for off, outcome := range want {
					require.Contains(t, got, off, "%s: CPython %s landed an interrupt at offset %d; the interpreter never checks there", name, v, off)
					require.Equal(t, outcome, got[off], "%s: an interrupt landing at offset %d", name, off)
				}
			}
		})
	}
}

var unwindLine = regexp.MustCompile(`^(\S+) (\d+) (\S+) (held=\S+ cuda=\S+)$`)

// readUnwindGolden reads a golden of interrupt_unwind.py: its header line
// and, per variant, the outcome at each landing offset.
func readUnwindGolden(t *testing.T, path string) (head string, golden map[string]map[int]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	golden = map[string]map[int]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			head = line
			continue
		}
		m := unwindLine.FindStringSubmatch(line)
		require.NotNil(t, m, "%s: bad line %q", path, line)
		off, _ := strconv.Atoi(m[2])
		if golden[m[1]] == nil {
			golden[m[1]] = map[int]string{}
		}
		golden[m[1]][off] = m[4]
	}
	require.NoError(t, sc.Err())
	return head, golden
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// moduleLevel are the names a variant's file assigns at its top level
// (_globals_locks = defaultdict(threading.Lock), ...).
var moduleLevel = regexp.MustCompile(`(?m)^(_\w+) = `)

// unwindRun runs file's swap as interrupt_unwind.py's world does (with
// swapped_cuda_module(f1, fake): pass) on version v, and at every step of
// swapped_cuda_module that ends at an eval-breaker check, in a copy of the
// state, raises KeyboardInterrupt there and runs the copy on: the outcome
// at that instruction's offset is which of the module's locks are held
// after it and what f1's cuda is, written as the golden writes it.
func unwindRun(t *testing.T, v pyvm.Version, file string) map[int]string {
	t.Helper()
	p, s, g, swap, fn, fake := swapWorld(t, v, file)
	var names []string
	for _, m := range moduleLevel.FindAllStringSubmatch(readFile(t, file), -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	outcome := func(s *pyvm.State) string {
		var held []string
		for _, n := range names {
			val, ok := s.Global(n)
			require.True(t, ok, "no global %s", n)
			r := s.Repr(val)
			if strings.HasPrefix(r, "<locked ") {
				held = append(held, n)
			}
			if strings.HasPrefix(r, "defaultdict(") || strings.HasPrefix(r, "{") {
				for _, kv := range s.DictItems(val) {
					if strings.HasPrefix(s.Repr(kv[1]), "<locked ") {
						held = append(held, n+"[gid]")
					}
				}
			}
		}
		h := strings.Join(held, ",")
		if h == "" {
			h = "-"
		}
		cuda, _ := s.DictGet(g, p.Str("cuda"))
		what := "other"
		switch s.Repr(cuda) {
		case "<module 'numba.cuda'>":
			what = "real"
		case s.Repr(fake):
			what = "fake"
		}
		return fmt.Sprintf("held=%s cuda=%s", h, what)
	}
	// phases are the world's three calls: swapped_cuda_module(f1, fake),
	// cm.__enter__(), cm.__exit__(None, None, None).
	var cm pyvm.Value
	phases := []func(s *pyvm.State){
		func(s *pyvm.State) { s.Begin(0, swap, fn, fake) },
		func(s *pyvm.State) { require.NoError(t, s.Enter(0, cm)) },
		func(s *pyvm.State) { require.NoError(t, s.Exit(0, cm, pyvm.None)) },
	}
	// finish runs s from phase i on until a phase raises or all ran.
	finish := func(s *pyvm.State, i int) {
		for {
			_, exc := runAlone(t, p, s)
			if exc.K != 0 || i+1 == len(phases) {
				return
			}
			i++
			phases[i](s)
		}
	}
	got := map[int]string{}
	var info pyvm.StepInfo
	for i, begin := range phases {
		begin(s)
		for n := 0; s.Status(0) == pyvm.Running; n++ {
			require.Less(t, n, 100000)
			p.Step(s, 0, &info)
			require.Empty(t, info.Fault)
			if !info.Check || info.Code == nil || info.Code.QualName != "swapped_cuda_module" {
				continue
			}
			off := info.Code.Instrs[info.Instr].Offset
			c := s.Clone()
			exc, err := c.NewException(0, "KeyboardInterrupt")
			require.NoError(t, err)
			var raised pyvm.StepInfo
			p.Interrupt(c, 0, exc, &raised)
			finish(c, i)
			got[off] = outcome(c)
		}
		if i == 0 {
			cm, _ = s.Result(0)
		}
	}
	return got
}
