package scenario_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"swapcheck/scenario"
)

// FuzzScenario: the scenario parser, on any bytes, returns a scenario or
// a one-line error without raw control characters, never panics; a
// scenario it accepts renders (Scenario.String, the canonical form) to
// text it parses back to the same scenario. Seeded with the scenario files
// under testdata/scenarios and the rendering of the default shape.
//
//	go test -run '^$' -fuzz '^FuzzScenario$' -fuzztime 60s ./scenario
func FuzzScenario(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.txt"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed scenarios under testdata/scenarios (%v)", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	sc, err := scenario.DefaultShape.Build()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(sc.String()))
	f.Add([]byte("module m cuda\nkernel: use cuda.local; raise\nthreads 1024\n"))
	f.Add([]byte("module m cuda\ndevice f in m: repeat 2: if tid != 1: pass; else: raise; end; end\nkernel: if tid < 2: call f; repeat 3: use cuda.local\n"))
	f.Add([]byte("module m cuda cu\ndevice f in m: use cu.local.array; i = cuda.threadIdx.x\nkernel: b = cuda.blockIdx; call f\n"))
	f.Add([]byte("module k cuda\nmodule lib\ndevice sq in lib: pass\nkernel: call sq\n"))
	f.Add([]byte("module k cuda\nmodule lib\ndevice sq(x, y) in lib: pass\nkernel: i = cuda.threadIdx.x; call sq(i, 3)\nhost: call sq(1, 2); launch\n"))
	f.Add([]byte("module k np=numpy cuda N=4\nmodule lib x=1\ndevice f in lib: pass\nkernel: call f\n"))
	f.Add([]byte("blocks 2\nmodule m cuda\ndevice f in m: if tid % 2 == 0: use cuda.local; end\nkernel: if bid == 1: call f; else: if bid % 3 >= 1: raise\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		strict, strictErr := scenario.Parse(strings.NewReader(string(data)))
		requireOneLine(t, strictErr)
		wide, err := scenario.ParseUpTo(strings.NewReader(string(data)), scenario.MaxStressThreads)
		requireOneLine(t, err)
		if strictErr == nil && err != nil {
			t.Fatalf("Parse accepts what ParseUpTo refuses: %v", err)
		}
		if strict != nil && wide.String() != strict.String() {
			t.Fatalf("Parse and ParseUpTo read the same text differently:\n%s\n%s", strict, wide)
		}
		if wide == nil {
			return
		}
		text := wide.String()
		again, err := scenario.ParseUpTo(strings.NewReader(text), scenario.MaxStressThreads)
		if err != nil {
			t.Fatalf("the rendering of a parsed scenario does not parse: %v\n%s", err, text)
		}
		if got := again.String(); got != text {
			t.Fatalf("the rendering does not round-trip:\n%s\nreads back as\n%s", text, got)
		}
		requireSameScenario(t, wide, again)
	})
}

// requireOneLine fails unless err is nil or a single line of printable
// text: what a command prints on stderr before exiting 2.
func requireOneLine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if msg == "" {
		t.Fatal("an empty error message")
	}
	if strings.ContainsFunc(msg, unicode.IsControl) {
		t.Fatalf("the error holds a control character (or spans lines): %q", msg)
	}
}

// requireSameScenario compares what the rendering could hide: the
// statements' indices and the function list.
func requireSameScenario(t *testing.T, a, b *scenario.Scenario) {
	t.Helper()
	if a.Threads != b.Threads || a.Blocks != b.Blocks || a.Launches != b.Launches || a.NumHosts() != b.NumHosts() ||
		len(a.Modules) != len(b.Modules) || len(a.Functions) != len(b.Functions) || len(a.Kernel) != len(b.Kernel) {
		t.Fatalf("the round trip changed the scenario's shape:\n%s\n%s", a, b)
	}
	for i, f := range a.Functions {
		g := b.Functions[i]
		if f.Name != g.Name || f.Module != g.Module || !slices.Equal(f.Params, g.Params) || !sameStmts(f.Body, g.Body) {
			t.Fatalf("the round trip changed device function %s", f.Name)
		}
	}
	if !sameStmts(a.Kernel, b.Kernel) {
		t.Fatal("the round trip changed the kernel")
	}
	if !slices.EqualFunc(a.Host, b.Host, func(x, y scenario.HostStmt) bool {
		return x.Kind == y.Kind && x.Func == y.Func && slices.Equal(x.Args, y.Args)
	}) {
		t.Fatal("the round trip changed the host's program")
	}
}

func sameStmts(a, b []scenario.Stmt) bool {
	if len(a) != len(b) {
		return false
	}
	for i, s := range a {
		u := b[i]
		if s.Kind != u.Kind || s.Name != u.Name || s.Attr != u.Attr || s.Rest != u.Rest || s.Target != u.Target ||
			s.Func != u.Func || !slices.Equal(s.Args, u.Args) || s.Cond != u.Cond || s.Times != u.Times ||
			!sameStmts(s.Then, u.Then) || !sameStmts(s.Else, u.Else) || !sameStmts(s.Body, u.Body) {
			return false
		}
	}
	return true
}
