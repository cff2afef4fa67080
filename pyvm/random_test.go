package pyvm_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"swapcheck/pyvm"
)

// The random differential test: rapid draws small modules from the subset
// the interpreter supports (assignments, dict and defaultdict operations,
// comprehensions, with over a lock and over a @contextmanager,
// try/except/finally, generators, del, tuple unpacking, is/==/in, loops),
// and each runs in CPython and in the Go interpreter, for every version
// found, which must agree on the return value, the exception and the
// module's globals. On a failure rapid shrinks the program and prints the
// command that replays it.

// genProgram draws a module defining f().
var genProgram = rapid.Custom(func(t *rapid.T) string {
	g := &progGen{t: t}
	return g.module()
})

type progGen struct {
	t     *rapid.T
	b     strings.Builder
	depth int
	loops int
	// holdsL: the statement being drawn runs inside a with L:.
	holdsL bool
}

// The module's fixed names: ints a b c, dicts d e, a list l, a string s;
// module globals G (dict), DD (defaultdict(int)), LD (defaultdict(list)),
// N (int), LOG (list), L (a Lock), R (an RLock); cm(x) a
// @contextmanager; gen(n) a generator.
const progHeader = `import threading
from collections import defaultdict
from contextlib import contextmanager
G = {}
DD = defaultdict(int)
LD = defaultdict(list)
N = 0
LOG = []
L = threading.Lock()
R = threading.RLock()


@contextmanager
def cm(x):
    LOG.append(('in', x))
    try:
        yield x + 1
    except KeyError as e:
        LOG.append(('caught', str(e)))
        %s
    finally:
        LOG.append(('out', x))


def gen(n):
    for i in range(n):
        LOG.append(('gen', i))
        yield i * 2
    return n
`

func (g *progGen) draw(name string, choices ...string) string {
	return rapid.SampledFrom(choices).Draw(g.t, name)
}

func (g *progGen) intn(name string, lo, hi int) int { return rapid.IntRange(lo, hi).Draw(g.t, name) }

func (g *progGen) key() string { return g.draw("key", "'x'", "'y'", "'z'", "1", "2") }

func (g *progGen) module() string {
	cmExcept := g.draw("cm-except", "raise", "pass")
	fmt.Fprintf(&g.b, progHeader, cmExcept)
	g.b.WriteString("\n\ndef f():\n    global N\n    a, b, c = 0, 1, 2\n    d, e = {}, {'x': 1}\n    l = []\n    s = 'k'\n")
	g.block(1, g.intn("stmts", 1, 8))
	g.line(1, "return a, b, c, d, e, l, s")
	return g.b.String()
}

func (g *progGen) line(indent int, s string) {
	g.b.WriteString(strings.Repeat("    ", indent))
	g.b.WriteString(s)
	g.b.WriteString("\n")
}

func (g *progGen) block(indent, n int) {
	for i := 0; i < n; i++ {
		g.stmt(indent)
	}
}

func (g *progGen) intVar() string  { return g.draw("int-var", "a", "b", "c") }
func (g *progGen) dictVar() string { return g.draw("dict-var", "d", "e", "G") }

func (g *progGen) intExpr() string {
	switch g.intn("int-expr", 0, 9) {
	case 0, 1:
		return fmt.Sprint(g.intn("lit", 0, 3))
	case 2:
		return g.intVar()
	case 3:
		return "len(" + g.dictVar() + ")"
	case 4:
		return g.dictVar() + ".get(" + g.key() + ", 0)"
	case 5:
		return "DD[" + g.key() + "]"
	case 6:
		return g.intVar() + " " + g.draw("op", "+", "-", "*", "//", "%", "&", "|", "^") + " " + fmt.Sprint(g.intn("lit", 1, 3))
	case 7:
		return "(" + g.intExpr0() + " if " + g.cond() + " else " + g.intExpr0() + ")"
	case 8:
		return "len(l)"
	}
	return "N"
}

func (g *progGen) intExpr0() string { return g.draw("simple-int", "0", "1", "a", "b", "c", "N") }

func (g *progGen) cond() string {
	switch g.intn("cond", 0, 11) {
	case 0:
		return g.intVar() + " " + g.draw("cmp", "==", "!=", "<", "<=", ">", ">=") + " " + g.intExpr0()
	case 1:
		return g.key() + " " + g.draw("in", "in", "not in") + " " + g.dictVar()
	case 2:
		return g.dictVar() + ".get(" + g.key() + ") is " + g.draw("is", "None", "not None")
	case 3:
		return "not " + g.intVar()
	case 4:
		return g.intVar() + " and " + g.intVar()
	case 5:
		return g.intVar() + " or " + g.key() + " in DD"
	case 6:
		return "l"
	case 7:
		return "s == 'k'"
	case 8:
		return g.draw("anyall", "any", "all") + "(k == " + g.key() + " for k in " + g.dictVar() + ")"
	case 9:
		return g.draw("anyall", "any", "all") + "(k in DD for k in " + g.draw("iterable", "l", "d", "e", "G", "[]") + ")"
	case 10:
		return g.intVar() + " " + g.draw("cmp", "==", "!=", "<", "<=", ">", ">=") + " " + g.draw("float", "0.5", "1.0", "-2.5", "0.0")
	}
	return g.dictVar() + " is " + g.dictVar()
}

// raising are statements that may raise (inside a try, or to end f).
func (g *progGen) raising() string {
	switch g.intn("raising", 0, 6) {
	case 0:
		return g.intVar() + " = " + g.dictVar() + "[" + g.key() + "]"
	case 1:
		return "del " + g.dictVar() + "[" + g.key() + "]"
	case 2:
		return "raise KeyError(" + g.key() + ")"
	case 3:
		return g.intVar() + ", " + g.intVar() + " = " + g.draw("unpack", "None", "(1, 2, 3)", "(1,)", "l")
	case 4:
		return g.intVar() + " = " + g.dictVar() + ".pop(" + g.key() + ")"
	case 5:
		return g.intVar() + " = 1 // " + g.intVar()
	}
	return "raise ValueError('v')"
}

func (g *progGen) stmt(indent int) {
	nested := g.depth < 2
	n := 17
	if !nested {
		n = 11
	}
	switch g.intn("stmt", 0, n) {
	case 0:
		g.line(indent, g.intVar()+" = "+g.intExpr())
	case 1:
		g.line(indent, g.intVar()+" "+g.draw("aug", "+=", "-=", "*=")+" "+g.intExpr0())
	case 2:
		g.line(indent, g.dictVar()+"["+g.key()+"] = "+g.intExpr())
	case 3:
		switch g.intn("dict-method", 0, 4) {
		case 0:
			g.line(indent, g.dictVar()+".update({"+g.key()+": "+g.intExpr0()+"})")
		case 1:
			g.line(indent, g.dictVar()+".pop("+g.key()+", None)")
		case 2:
			g.line(indent, g.intVar()+" = "+g.dictVar()+".setdefault("+g.key()+", "+g.intExpr0()+")")
		case 3:
			g.line(indent, g.dictVar()+".update("+g.dictVar()+")")
		default:
			g.line(indent, "if "+g.key()+" in "+g.dictVar()+":")
			g.line(indent+1, "del "+g.dictVar()+"["+g.key()+"]")
		}
	case 4:
		g.line(indent, "DD["+g.key()+"] "+g.draw("dd-op", "+=", "-=")+" 1")
	case 5:
		g.line(indent, g.dictVar()+" = {k: v for k, v in "+g.dictVar()+".items() if v "+g.draw("cmp", "is", "==", "!=")+" "+g.intExpr0()+"}")
	case 6:
		switch g.intn("list", 0, 3) {
		case 0:
			g.line(indent, "l.append("+g.intExpr()+")")
		case 1:
			g.line(indent, "if l:")
			g.line(indent+1, g.intVar()+" = l.pop()")
		case 2:
			g.line(indent, "l = [x "+g.draw("lop", "+", "*")+" 1 for x in l if x != "+g.intExpr0()+"]")
		default:
			g.line(indent, "LD["+g.key()+"].append("+g.intExpr0()+")")
		}
	case 7:
		g.line(indent, g.intVar()+", "+g.intVar()+" = "+g.intExpr0()+", "+g.intExpr0())
	case 8:
		g.line(indent, "N += 1")
	case 9:
		g.line(indent, "LOG.append(("+g.intExpr0()+", "+g.cond()+"))")
	case 10:
		g.line(indent, "s = "+g.draw("str", "'k'", "str("+g.intVar()+")", "s + 'x'", "'j'"))
	case 11:
		g.line(indent, g.intVar()+" = "+g.draw("misc", "id(G) == id(G)", "isinstance(DD, dict)", "len(LD)", "next(gen(2))", "sum0(gen(3))", "len(dict((k, 1) for k in d))"))
	case 12:
		g.nest(indent, "if "+g.cond()+":")
		if g.intn("else", 0, 1) == 1 {
			g.nest(indent, "else:")
		}
	case 13:
		g.loops++
		switch g.intn("loop", 0, 3) {
		case 0:
			g.nest(indent, "for i in range("+fmt.Sprint(g.intn("range", 0, 3))+"):")
		case 1:
			g.nest(indent, "for k, v in list("+g.dictVar()+".items()):")
		case 2:
			g.nest(indent, "for x in gen("+fmt.Sprint(g.intn("range", 0, 3))+"):")
		default:
			w := fmt.Sprintf("w%d", g.loops)
			g.line(indent, w+" = 0")
			g.line(indent, "while "+w+" < "+fmt.Sprint(g.intn("range", 1, 3))+":")
			g.line(indent+1, w+" += 1")
			g.depth++
			g.block(indent+1, g.intn("body", 1, 3))
			g.depth--
		}
	case 14:
		g.line(indent, "try:")
		g.depth++
		g.block(indent+1, g.intn("body", 0, 2))
		g.line(indent+1, g.raising())
		g.depth--
		switch g.intn("handler", 0, 2) {
		case 0:
			g.line(indent, "except "+g.draw("exc", "KeyError", "(KeyError, ValueError)", "LookupError", "Exception")+" as ex:")
			g.line(indent+1, "LOG.append(str(ex))")
		case 1:
			g.line(indent, "except TypeError:")
			g.line(indent+1, "LOG.append('type')")
			g.line(indent, "except BaseException:")
			g.line(indent+1, "LOG.append('other')")
		}
		g.line(indent, "finally:")
		g.line(indent+1, "LOG.append('finally')")
	case 15:
		// L is not reentrant: a with L: inside another deadlocks CPython
		// (and the harness with it), so none is drawn while L is held.
		head := g.draw("with", "L:", "R:", "cm("+g.intExpr0()+") as "+g.intVar()+":")
		if head == "L:" && g.holdsL {
			head = "R:"
		}
		held := g.holdsL
		g.holdsL = g.holdsL || head == "L:"
		g.nest(indent, "with "+head)
		g.holdsL = held
	case 16:
		g.line(indent, g.raising())
	default:
		g.line(indent, "with cm("+g.intExpr0()+"):")
		g.line(indent+1, g.raising())
	}
}

// nest writes a compound statement's header and a body.
func (g *progGen) nest(indent int, header string) {
	g.line(indent, header)
	g.depth++
	g.block(indent+1, g.intn("body", 1, 3))
	g.depth--
}

// sum0 is the module's helper for generators consumed by a loop.
const sum0 = `

def sum0(it):
    t = 0
    for x in it:
        t += x
    return t
`

// draws is how many programs the test draws per run: rapid's default
// -rapid.checks (100), or 2000 under SWAPCHECK_LONG=1 unless
// -rapid.checks is given.
func longChecks() {
	if os.Getenv("SWAPCHECK_LONG") == "" {
		return
	}
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		_ = flag.Set("rapid.checks", "2000")
	}
}

func TestDifferentialRandom(t *testing.T) {
	longChecks()
	var hs []*harness
	var vs []pyvm.Version
	for _, v := range pyvm.Versions {
		t.Run("python"+v.String(), func(t *testing.T) {
			hs = append(hs, harnessFor(t, v))
			vs = append(vs, v)
		})
	}
	if len(hs) == 0 {
		t.Skip("no CPython found")
	}
	rapid.Check(t, func(rt *rapid.T) {
		src := genProgram.Draw(rt, "program") + sum0
		for i, v := range vs {
			c := Case{File: "<random>", Source: src, Call: "f"}
			py := hs[i].run(rt, c)
			if py.Syntax != "" {
				rt.Fatalf("the generator drew a program CPython %s cannot compile: %s\n%s", v, py.Syntax, src)
			}
			gr, err := runGo(v, py, c, pyvm.Options{})
			if err != nil {
				rt.Fatalf("python %s: %v\n%s", v, err, src)
			}
			if d := diff(py, gr); d != "" {
				rt.Fatalf("python %s differs:\n%s\nprogram:\n%s", v, d, src)
			}
		}
	})
}
