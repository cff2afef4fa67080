package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"swapcheck/scenario"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestShapeBuildRejects(t *testing.T) {
	ok := scenario.DefaultShape
	with := func(f func(*scenario.Shape)) scenario.Shape {
		sh := ok
		f(&sh)
		return sh
	}
	tests := []struct {
		name  string
		shape scenario.Shape
		err   string
	}{
		{"no threads", with(func(s *scenario.Shape) { s.Threads = 0 }), "threads must be 1..1024, got 0"},
		{"too many hosts", with(func(s *scenario.Shape) { s.Hosts = scenario.MaxHosts + 1 }), "hosts must be 1..3, got 4"},
		{"too many threads", with(func(s *scenario.Shape) { s.Threads = scenario.MaxThreads + 1 }), "threads must be 1..1024, got 1025"},
		{"no blocks", with(func(s *scenario.Shape) { s.Blocks = 0 }), "blocks must be 1..16, got 0"},
		{"too many blocks", with(func(s *scenario.Shape) { s.Blocks = scenario.MaxBlocks + 1 }), "blocks must be 1..16, got 17"},
		{"negative calls", with(func(s *scenario.Shape) { s.Calls = -1 }), "calls must be 0..32, got -1"},
		{"too many calls", with(func(s *scenario.Shape) { s.Calls = scenario.MaxStmts/2 + 1 }), "calls must be 0..32, got 33"},
		{"no modules", with(func(s *scenario.Shape) { s.Modules = 0 }), "modules must be 1..15, got 0"},
		{"too many modules", with(func(s *scenario.Shape) { s.Modules = scenario.MaxModules }), "modules must be 1..15, got 16"},
		{"no names", with(func(s *scenario.Shape) { s.Names = 0 }), "names must be 1..8, got 0"},
		{"too many names", with(func(s *scenario.Shape) { s.Names = scenario.MaxNames + 1 }), "names must be 1..8, got 9"},
		{"negative nest", with(func(s *scenario.Shape) { s.Nest = -1 }), "nest must be 0..8, got -1"},
		{"too deep", with(func(s *scenario.Shape) { s.Nest = scenario.MaxNest + 1 }), "nest must be 0..8, got 9"},
		{"too many functions", with(func(s *scenario.Shape) { s.Modules, s.Nest = 15, 4 }), "modules x (nest+1) must be at most 64, got 75"},
		{"too many globals in a module", with(func(s *scenario.Shape) { s.Names, s.Nest = 8, 8 }), "module dev1 has 18 globals (names and functions), at most 16"},
		{"kernel too long", with(func(s *scenario.Shape) { s.Calls, s.Syncthreads = 32, true }), "the kernel has 65 statements, at most 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = tt.shape.Build() })
			require.ErrorContains(t, err, tt.err)
		})
	}
}

// shapes are a few scenarios Shape.Build makes, at and inside its bounds.
var shapes = []scenario.Shape{
	scenario.DefaultShape,
	{Threads: 1, Blocks: 1, Calls: 0, Modules: 1, Names: 1},
	{Threads: 3, Blocks: 2, Calls: 2, Modules: 2, Names: 2, Nest: 1, Syncthreads: true},
	{Threads: 2, Blocks: 1, Calls: 3, Modules: 3, Names: 3, Nest: 2},
	{Threads: scenario.MaxThreads, Blocks: scenario.MaxBlocks, Calls: scenario.MaxStmts / 2, Modules: 7, Names: 7, Nest: 7},
	{Threads: 1, Blocks: 1, Calls: 31, Modules: 1, Names: 8, Nest: 6, Syncthreads: true},
	{Threads: 2, Blocks: 1, Calls: 1, Modules: 1, Names: 1, Hosts: 2, HostCalls: true},
}

func TestShapeBuildAccepts(t *testing.T) {
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("%+v", sh), func(t *testing.T) {
			sc, err := sh.Build()
			require.NoError(t, err)
			require.NoError(t, sc.Validate())
			require.Equal(t, sh.Threads, sc.Threads)
			require.Equal(t, sh.Blocks, sc.Blocks)
			if sh.Calls == 0 && !sh.HostCalls {
				// nothing calls a device function: no module of them
				require.Len(t, sc.Modules, 1)
				require.Empty(t, sc.Functions)
				return
			}
			require.Len(t, sc.Modules, 1+sh.Modules)
			require.Len(t, sc.Functions, sh.Modules*(sh.Nest+1))
		})
	}
}

func TestParseRoundTripShapes(t *testing.T) {
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("%+v", sh), func(t *testing.T) {
			sc, err := sh.Build()
			require.NoError(t, err)
			text := sc.String()
			back, err := scenario.Parse(strings.NewReader(text))
			require.NoError(t, err, "parsing:\n%s", text)
			require.Equal(t, text, back.String())
			require.Equal(t, sc, back)
		})
	}
}

// genScenario draws a small valid scenario: calls only go to functions
// defined later, so there is no cycle.
func genScenario(t *rapid.T) *scenario.Scenario {
	sc := &scenario.Scenario{
		Threads:  rapid.IntRange(1, scenario.MaxThreads).Draw(t, "threads"),
		Blocks:   rapid.IntRange(1, scenario.MaxBlocks).Draw(t, "blocks"),
		Launches: rapid.IntRange(1, scenario.MaxLaunches).Draw(t, "launches"),
	}
	if h := rapid.IntRange(1, scenario.MaxHosts).Draw(t, "hosts"); h > 1 {
		sc.Hosts = h // one host is the zero value
	}
	pool := []string{"cuda", "cu", "numba_cuda", "c2"}
	attrs := []string{"local", "threadIdx", "shared", "blockIdx", "grid"}
	for m := range rapid.IntRange(1, 3).Draw(t, "modules") {
		n := rapid.IntRange(1, len(pool)).Draw(t, "names")
		sc.Modules = append(sc.Modules, scenario.Module{Name: fmt.Sprintf("mod%d", m), Names: pool[:n]})
	}
	nf := rapid.IntRange(0, 4).Draw(t, "functions")
	var body func(mod, callFrom int) []scenario.Stmt
	depth := 0
	body = func(mod, callFrom int) []scenario.Stmt {
		var out []scenario.Stmt
		for range rapid.IntRange(0, 4).Draw(t, "statements") {
			kinds := 3
			if depth < 2 { // branches and repeats, nested up to 2 deep
				kinds = 5
			}
			switch rapid.IntRange(0, kinds).Draw(t, "kind") {
			case 4:
				depth++
				s := scenario.Stmt{Kind: scenario.OpIf, Cond: scenario.Cond{
					Op:   scenario.CmpOp(rapid.IntRange(int(scenario.CmpEq), int(scenario.CmpGe)).Draw(t, "op")),
					Than: rapid.IntRange(0, 4).Draw(t, "than")}}
				s.Then = body(mod, callFrom)
				if rapid.Bool().Draw(t, "else") {
					s.Else = body(mod, callFrom)
				}
				depth--
				out = append(out, s)
			case 5:
				depth++
				out = append(out, scenario.Stmt{Kind: scenario.OpRepeat, Times: rapid.IntRange(1, 3).Draw(t, "times"), Body: body(mod, callFrom)})
				depth--
			case 0:
				out = append(out, scenario.Stmt{Kind: scenario.OpUse,
					Name: rapid.IntRange(0, len(sc.Modules[mod].Names)-1).Draw(t, "name"),
					Attr: rapid.SampledFrom(attrs).Draw(t, "attr")})
			case 1:
				if callFrom < nf {
					out = append(out, scenario.Stmt{Kind: scenario.OpCall, Func: rapid.IntRange(callFrom, nf-1).Draw(t, "callee")})
				}
			case 2:
				out = append(out, scenario.Stmt{Kind: scenario.OpSync})
			default:
				out = append(out, scenario.Stmt{Kind: scenario.OpRaise})
			}
		}
		return out
	}
	for i := range nf {
		m := rapid.IntRange(0, len(sc.Modules)-1).Draw(t, "module")
		sc.Functions = append(sc.Functions, scenario.Function{Name: fmt.Sprintf("f%d", i), Module: m, Body: body(m, i+1)})
	}
	sc.Kernel = body(0, 0)
	if nf > 0 && rapid.Bool().Draw(t, "host calls") {
		// the host's program: its launches, with device calls before,
		// between and after them
		for l := 0; l <= sc.Launches; l++ {
			for range rapid.IntRange(0, 2).Draw(t, "host calls here") {
				sc.Host = append(sc.Host, scenario.HostStmt{Kind: scenario.HostCall, Func: rapid.IntRange(0, nf-1).Draw(t, "host callee")})
			}
			if l < sc.Launches {
				sc.Host = append(sc.Host, scenario.HostStmt{Kind: scenario.HostLaunch})
			}
		}
		if len(sc.Host) == sc.Launches { // no call drawn: the host only launches
			sc.Host = nil
		}
	}
	return sc
}

func TestParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc := genScenario(t)
		require.NoError(t, sc.Validate())
		text := sc.String()
		back, err := scenario.Parse(strings.NewReader(text))
		require.NoError(t, err, "parsing:\n%s", text)
		require.Equal(t, text, back.String())
		require.Equal(t, sc, back)
	})
}

func TestParseErrors(t *testing.T) {
	const mod = "module k cuda\n"
	tests := []struct {
		name, text, err string
	}{
		{"number", "threads x", "line 1: threads takes a whole number"},
		{"number overflows", "blocks 99999999999999999999", "line 1: blocks takes a whole number"},
		{"given twice", "launches 1\n\nlaunches 2", "line 3: launches given twice"},
		{"kernel's module without names", "module k", "line 1: module k is the kernel's (the first module), which needs a global bound to cuda: module k cuda"},
		{"module without a name", "module", "line 1: module needs a name and its globals bound to cuda"},
		{"use in a module without names", "module k cuda\nmodule lib\ndevice f in lib: use cuda.local\nkernel: call f", "line 3: device f: use cuda.local loads cuda, but module lib binds no name to cuda (module lib cuda)"},
		{"syncthreads in a module without names", "module k cuda\nmodule lib\ndevice f in lib: syncthreads\nkernel: call f", "line 3: device f: syncthreads (cuda.syncthreads()) loads cuda, but module lib binds no name to cuda"},
		{"branch in a module without names", "module k cuda\nmodule lib\ndevice f in lib: if tid == 0: pass\nkernel: call f", "line 3: device f: a branch's condition (cuda.threadIdx.x) loads cuda, but module lib binds no name to cuda"},
		{"module name twice", mod + "module k cu", "line 2: module k defined twice"},
		{"global twice", "module k cuda cuda", "line 1: module k: cuda appears twice"},
		{"global not a name", "module k 1cuda", `line 1: module k: "1cuda" is not a Python name`},
		{"device syntax", mod + "device f k: use cuda.local", "line 2: want: device NAME in MODULE"},
		{"device no colon", mod + "device f in k use cuda.local", "line 2: want: device NAME in MODULE"},
		{"device unknown module", mod + "device f in m: use cuda.local", "line 2: device f: no module m"},
		{"device twice", mod + "device f in k: use cuda.local\ndevice f in k: use cuda.y", "line 3: device function f defined twice"},
		{"device not a name", mod + "device 9f in k: use cuda.local", `line 2: "9f" is not a Python name`},
		{"kernel first", "kernel: use cuda.local", "line 1: kernel before any module"},
		{"kernel twice", mod + "kernel: use cuda.local\nkernel: use cuda.y", "line 3: kernel given twice"},
		{"kernel no colon", mod + "kernel use cuda.local", "line 2: want: kernel: STATEMENT"},
		{"unknown directive", mod + "# a comment\n\nthread 2", `line 4: unknown directive "thread"`},
		{"use not a global", mod + "kernel: use cu.local", "line 2: kernel: cu is not a global of module k"},
		{"use without attribute", mod + "kernel: use cuda", `line 2: kernel: want use NAME.ATTR (or NAME.ATTR.ATTR..., or TARGET = NAME.ATTR), got "use cuda"`},
		{"attribute not a name", mod + "kernel: use cuda.1x", `line 2: kernel: want use NAME.ATTR (or NAME.ATTR.ATTR..., or TARGET = NAME.ATTR), got "use cuda.1x"`},
		{"unknown call", mod + "device f in k: call g\nkernel: call f", "line 2: device f: call g: no such device function"},
		{"unknown statement", mod + "kernel: use cuda.local; jump", `line 2: kernel: unknown statement "jump"`},
		{"statement with extra words", mod + "kernel: syncthreads now", `line 2: kernel: unknown statement "syncthreads now"`},
		{"host unknown call", mod + "kernel: use cuda.local\nhost: launch; call g", "line 3: host: call g: no such device function"},
		{"host never launches", mod + "device f in k: use cuda.local\nkernel: call f\nhost: call f", "line 4: host: the host never launches the kernel"},
		{"host against launches", "launches 2\n" + mod + "device f in k: use cuda.local\nkernel: call f\nhost: call f; launch", "line 5: host: the host launches 1, but the launches line says 2"},
		{"threads over the bound", "threads 1025\n" + mod + "kernel: use cuda.local", "line 1: threads must be 1..1024, got 1025"},
		{"blocks over the bound", "blocks 0\n" + mod + "kernel: use cuda.local", "line 1: blocks must be 1..16, got 0"},
		{"launches over the bound", "launches 5\n" + mod + "kernel: use cuda.local", "line 1: launches must be 1..4, got 5"},
		{"host unknown statement", mod + "kernel: use cuda.local\nhost: launch; use cuda.local", `line 3: host: unknown statement "use cuda.local" (want launch or call FUNC)`},
		{"host twice", mod + "kernel: use cuda.local\nhost: launch\nhost: launch", "line 4: host given twice"},
		{"host no colon", mod + "kernel: use cuda.local\nhost launch", "line 3: want: host: launch; call FUNC"},
		{"no hosts", "hosts 0", "line 1: hosts must be 1..3, got 0"},
		{"too many hosts", "hosts 4", "line 1: hosts must be 1..3, got 4"},
		{"hosts not a number", "hosts two", `line 1: hosts takes a whole number, got "two"`},
		{"hosts twice", "hosts 2\nhosts 2", "line 2: hosts given twice"},
		{"branch on an unknown name", mod + "kernel: if blk == 0: use cuda.local", `line 2: kernel: if "blk == 0": unknown name blk (a branch may test tid, the thread's index cuda.threadIdx.x, or bid`},
		{"branch without comparison", mod + "kernel: if tid: use cuda.local", `line 2: kernel: want if tid OP N: or if tid % M OP N: (tid or bid; OP one of == != < <= > >=; spaces between), got "if tid"`},
		{"branch modulo zero", mod + "kernel: if tid % 0 == 0: use cuda.local", `line 2: kernel: if "tid % 0 == 0": take tid modulo a whole number 1..1024, got "0"`},
		{"branch modulo a name", mod + "kernel: if bid % n == 0: use cuda.local", `line 2: kernel: if "bid % n == 0": take bid modulo a whole number 1..1024, got "n"`},
		{"branch without spaces", mod + "kernel: if tid%2==0: use cuda.local", `line 2: kernel: want if tid OP N: or if tid % M OP N:`},
		{"branch on an unknown comparison", mod + "kernel: if tid =< 1: use cuda.local", `line 2: kernel: if "tid =< 1": unknown comparison "=<"`},
		{"branch on a negative index", mod + "kernel: if tid > -1: use cuda.local", `line 2: kernel: if "tid > -1": compare tid with a whole number 0..1024, got "-1"`},
		{"branch on a name's bytes", mod + "kernel: if t\x01d == 0: use cuda.local", `line 2: kernel: if "t\x01d == 0": unknown name "t\x01d"`},
		{"else without if", mod + "kernel: use cuda.local; else: raise", "line 2: kernel: else without its if"},
		{"else twice", mod + "kernel: if tid == 0: raise; else: raise; else: raise", "line 2: kernel: else without its if"},
		{"else in a repeat", mod + "kernel: repeat 2: raise; else: raise", "line 2: kernel: else without its if"},
		{"end without block", mod + "kernel: use cuda.local; end", "line 2: kernel: end without an if or a repeat"},
		{"repeat 0", mod + "kernel: repeat 0: use cuda.local", "line 2: kernel: repeat 0: the count must be 1..8"},
		{"repeat too many", mod + "kernel: repeat 9: use cuda.local", "line 2: kernel: repeat 9: the count must be 1..8"},
		{"repeat no count", mod + "kernel: repeat: use cuda.local", `line 2: kernel: want repeat N: STATEMENT; ..., got "repeat: use cuda.local"`},
		{"nested too deep", mod + "kernel: repeat 2: repeat 2: if tid == 0: repeat 2: if tid == 1: raise", "line 2: kernel: branches and repeats nest more than 4 deep"},
		{"unrolled too long", mod + "kernel: repeat 8: repeat 8: repeat 8: use cuda.local", "line 2: kernel: runs 512 statements once its repeats are unrolled, at most 256"},
		{"too many statements", mod + "kernel: " + strings.Repeat("use cuda.local; ", 65), "line 2: kernel: 65 statements, at most 64"},
		{"unknown statement in a branch", mod + "kernel: if tid == 0: jump", `line 2: kernel: unknown statement "jump"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.Parse(strings.NewReader(tt.text))
			require.ErrorContains(t, err, tt.err)
		})
	}
}

// Some errors are about the scenario as a whole and name no line.
func TestParseScenarioErrors(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"empty", "", "no module"},
		{"no kernel", "module k cuda", "no kernel line"},
		{"bad threads", "threads 0\nmodule k cuda\nkernel: use cuda.local", "threads must be 1..1024, got 0"},
		{"cycle", "module k cuda\ndevice f in k: call g\ndevice g in k: call f\nkernel: call f", "device functions call each other in a cycle"},
		{"cycle called from the host", "module k cuda\ndevice f in k: call g\ndevice g in k: call f\nkernel: use cuda.local\nhost: launch; call f", "device functions call each other in a cycle"},
		{"too many launches", "module k cuda\ndevice f in k: use cuda.local\nkernel: call f\nhost: launch; launch; call f; launch; launch; launch", "launches must be 1..4, got 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.Parse(strings.NewReader(tt.text))
			require.ErrorContains(t, err, tt.err)
		})
	}
}

func TestValidate(t *testing.T) {
	use := scenario.Stmt{Kind: scenario.OpUse, Name: 0, Attr: "local"}
	call := func(f int) scenario.Stmt { return scenario.Stmt{Kind: scenario.OpCall, Func: f} }
	mods := []scenario.Module{{Name: "k", Names: []string{"cuda"}}}
	chain := func(n int) []scenario.Function { // f0 calls f1 calls ... f(n-1)
		fs := make([]scenario.Function, n)
		for i := range fs {
			fs[i] = scenario.Function{Name: fmt.Sprintf("f%d", i), Body: []scenario.Stmt{use}}
			if i+1 < n {
				fs[i].Body = []scenario.Stmt{call(i + 1)}
			}
		}
		return fs
	}
	tests := []struct {
		name      string
		functions []scenario.Function
		kernel    []scenario.Stmt
		err       string
	}{
		{"self call", []scenario.Function{{Name: "f", Body: []scenario.Stmt{call(0)}}}, []scenario.Stmt{call(0)}, "cycle"},
		{"two-function cycle", []scenario.Function{
			{Name: "f", Body: []scenario.Stmt{use, call(1)}},
			{Name: "g", Body: []scenario.Stmt{call(0)}},
		}, []scenario.Stmt{call(0)}, "cycle"},
		{"cycle below a chain", append(chain(3)[:2], scenario.Function{Name: "f2", Body: []scenario.Stmt{call(1)}}), []scenario.Stmt{call(0)}, "cycle"},
		{"too deep", chain(scenario.MaxNest + 2), []scenario.Stmt{call(0)}, "device calls nest 10 deep, at most 9"},
		{"no such function", nil, []scenario.Stmt{call(0)}, "the kernel calls device function #0, which does not exist"},
		{"no such name", nil, []scenario.Stmt{{Kind: scenario.OpUse, Name: 1, Attr: "x"}}, "the kernel uses name #1, but module k binds 1 names"},
		{"unknown kind", nil, []scenario.Stmt{{Kind: 99}}, "the kernel has a statement of unknown kind 99"},
		{"no such module", []scenario.Function{{Name: "f", Module: 3}}, nil, "device function f: no module 3"},
	}
	hostTests := []struct {
		name string
		host []scenario.HostStmt
		err  string
	}{
		{"host calls no such function", []scenario.HostStmt{{Kind: scenario.HostLaunch}, {Kind: scenario.HostCall, Func: 1}}, "the host calls device function #1, which does not exist"},
		{"host launches too often", []scenario.HostStmt{{Kind: scenario.HostLaunch}, {Kind: scenario.HostLaunch}}, "the host launches 2, but the scenario's launches say 1"},
		{"host statement of unknown kind", []scenario.HostStmt{{Kind: 9}}, "the host has a statement of unknown kind 9"},
	}
	for _, tt := range hostTests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scenario.Scenario{Threads: 1, Blocks: 1, Launches: 1, Modules: mods, Functions: chain(1), Kernel: []scenario.Stmt{use}, Host: tt.host}
			require.ErrorContains(t, sc.Validate(), tt.err)
		})
	}
	for _, hosts := range []int{-1, scenario.MaxHosts + 1} {
		sc := &scenario.Scenario{Threads: 1, Blocks: 1, Launches: 1, Hosts: hosts, Modules: mods, Kernel: []scenario.Stmt{use}}
		require.ErrorContains(t, sc.Validate(), fmt.Sprintf("hosts must be 1..3, got %d", hosts))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scenario.Scenario{Threads: 1, Blocks: 1, Launches: 1, Modules: mods, Functions: tt.functions, Kernel: tt.kernel}
			require.ErrorContains(t, sc.Validate(), tt.err)
		})
	}
	t.Run("deepest allowed", func(t *testing.T) {
		sc := &scenario.Scenario{Threads: 1, Blocks: 1, Launches: 1, Modules: mods, Functions: chain(scenario.MaxNest + 1), Kernel: []scenario.Stmt{call(0)}}
		require.NoError(t, sc.Validate())
	})
}

// A file that starts with a UTF-8 byte order mark, as some editors write
// one, reads as the same file without it.
func TestParseAcceptsAByteOrderMark(t *testing.T) {
	text := "threads 3\nmodule k cuda\nkernel: use cuda.local\n"
	plain, err := scenario.Parse(strings.NewReader(text))
	require.NoError(t, err)
	marked, err := scenario.Parse(strings.NewReader("\ufeff" + text))
	require.NoError(t, err)
	require.Equal(t, plain.String(), marked.String())
}
