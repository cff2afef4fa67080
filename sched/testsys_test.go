package sched_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"swapcheck/sched"
)

// A toy System for the tests: threads run straight-line programs over a few
// shared integer registers and locks. Its whole state is one flat slice, so
// Clone is a copy and AppendKey is the slice as bytes.

// opKind is one operation of a toy thread.
type opKind uint8

const (
	opRead    opKind = 1 + iota // local = r[Reg]
	opWrite                     // r[Reg] = local + K
	opAcquire                   // acquire l[Lock]; blocks while any thread holds it (not reentrant)
	opRelease                   // release l[Lock]; fails unless this thread holds it
	opAssert                    // fails when r[Reg] == V
)

// op is one step of a toy thread. Its text form, used by toy and String:
//
//	r0    read r0 into the local
//	w1+2  write local+2 to r1
//	a0    acquire l0
//	u0    release (unlock) l0
//	f1=3  fail if r1 == 3
type op struct {
	Kind         opKind
	Reg, K, V, L int
}

func (o op) String() string {
	switch o.Kind {
	case opRead:
		return fmt.Sprintf("r%d", o.Reg)
	case opWrite:
		return fmt.Sprintf("w%d+%d", o.Reg, o.K)
	case opAcquire:
		return fmt.Sprintf("a%d", o.L)
	case opRelease:
		return fmt.Sprintf("u%d", o.L)
	case opAssert:
		return fmt.Sprintf("f%d=%d", o.Reg, o.V)
	case opAwait:
		return fmt.Sprintf("e%d=%d", o.Reg, o.V)
	case opJoin:
		return "j"
	case opSpin:
		return fmt.Sprintf("s%d=%d", o.Reg, o.V)
	}
	return fmt.Sprintf("op(%d)", o.Kind)
}

// The failure kinds of the toy system (besides sched.KindDeadlock).
const (
	kindAssert  = "assert"
	kindRelease = "release-unheld"
	kindFinal   = "final"
)

// program is a toy multi-threaded program.
type program struct {
	Threads [][]op
	Regs    int
	Locks   int
	// FinalCheck makes Final fail when r[FinalReg] == FinalV.
	FinalCheck       bool
	FinalReg, FinalV int
}

// toy builds a program from one text per thread ("a0 r1 w1+1 u0"), with
// as many registers and locks as its ops name (at least one of each).
func toy(threads ...string) *program {
	p := &program{Regs: 1, Locks: 1}
	for _, text := range threads {
		var ops []op
		for _, w := range strings.Fields(text) {
			o := parseOp(w)
			p.Regs = max(p.Regs, o.Reg+1)
			p.Locks = max(p.Locks, o.L+1)
			ops = append(ops, o)
		}
		p.Threads = append(p.Threads, ops)
	}
	return p
}

// finalFails makes p's end state fail when r[reg] == v.
func finalFails(p *program, reg, v int) *program {
	p.FinalCheck, p.FinalReg, p.FinalV = true, reg, v
	return p
}

func parseOp(w string) op {
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			panic(fmt.Sprintf("toy op %q: %v", w, err))
		}
		return n
	}
	switch w[0] {
	case 'r':
		return op{Kind: opRead, Reg: num(w[1:])}
	case 'w':
		r, k, _ := strings.Cut(w[1:], "+")
		return op{Kind: opWrite, Reg: num(r), K: num(k)}
	case 'a':
		return op{Kind: opAcquire, L: num(w[1:])}
	case 'u':
		return op{Kind: opRelease, L: num(w[1:])}
	case 'f':
		r, v, _ := strings.Cut(w[1:], "=")
		return op{Kind: opAssert, Reg: num(r), V: num(v)}
	}
	panic(fmt.Sprintf("toy op %q: unknown", w))
}

// String renders p in toy's syntax, one quoted thread after another.
func (p *program) String() string {
	var b strings.Builder
	p.writeThreads(&b, func(int) string { return "" })
	fmt.Fprintf(&b, " (regs %d, locks %d", p.Regs, p.Locks)
	if p.FinalCheck {
		fmt.Fprintf(&b, ", final fails if r%d == %d", p.FinalReg, p.FinalV)
	}
	b.WriteString(")")
	return b.String()
}

// writeThreads writes p's threads in toy's syntax, each quoted after its
// mark, separated by commas.
func (p *program) writeThreads(b *strings.Builder, mark func(thread int) string) {
	for i, ops := range p.Threads {
		if i > 0 {
			b.WriteString(", ")
		}
		words := make([]string, len(ops))
		for j, o := range ops {
			words[j] = o.String()
		}
		fmt.Fprintf(b, "%s%q", mark(i), strings.Join(words, " "))
	}
}

// toySystem runs a program. Its state: per thread the pc, then per thread
// the local, then the registers, then per lock its owner (0 free, else the
// owning thread + 1).
type toySystem struct {
	p *program
	s []int32
}

func newToy(p *program) *toySystem {
	n := len(p.Threads)
	return &toySystem{p: p, s: make([]int32, 2*n+p.Regs+p.Locks)}
}

func (y *toySystem) pc(t sched.ThreadID) *int32    { return &y.s[t] }
func (y *toySystem) local(t sched.ThreadID) *int32 { return &y.s[len(y.p.Threads)+int(t)] }
func (y *toySystem) reg(r int) *int32              { return &y.s[2*len(y.p.Threads)+r] }
func (y *toySystem) owner(l int) *int32            { return &y.s[2*len(y.p.Threads)+y.p.Regs+l] }

// next is thread t's next op; ok is false when t is done.
func (y *toySystem) next(t sched.ThreadID) (op, bool) {
	ops := y.p.Threads[t]
	pc := int(*y.pc(t))
	if pc >= len(ops) {
		return op{}, false
	}
	return ops[pc], true
}

func (y *toySystem) NumThreads() int { return len(y.p.Threads) }

func (y *toySystem) Status(t sched.ThreadID) sched.Status {
	o, ok := y.next(t)
	switch {
	case !ok:
		return sched.Done
	case o.Kind == opAcquire && *y.owner(o.L) != 0:
		return sched.Blocked
	}
	return sched.Runnable
}

// Footprint: registers are objects 1..Regs, locks follow.
func (y *toySystem) Footprint(t sched.ThreadID) sched.Footprint {
	o, ok := y.next(t)
	if !ok {
		panic("toy: Footprint of a done thread")
	}
	switch o.Kind {
	case opRead, opAssert:
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Read}
	case opWrite:
		return sched.Footprint{Object: 1 + o.Reg, Access: sched.Write}
	case opAcquire:
		return sched.Footprint{Object: 1 + y.p.Regs + o.L, Access: sched.Write, MayBlock: true}
	}
	return sched.Footprint{Object: 1 + y.p.Regs + o.L, Access: sched.Write}
}

func (y *toySystem) Step(t sched.ThreadID) *sched.Failure {
	if y.Status(t) != sched.Runnable {
		panic(fmt.Sprintf("toy: step of thread %d, which is %s", t, y.Status(t)))
	}
	o, _ := y.next(t)
	*y.pc(t)++
	switch o.Kind {
	case opRead:
		*y.local(t) = *y.reg(o.Reg)
	case opWrite:
		*y.reg(o.Reg) = *y.local(t) + int32(o.K)
	case opAcquire:
		*y.owner(o.L) = int32(t) + 1
	case opRelease:
		if *y.owner(o.L) != int32(t)+1 {
			return &sched.Failure{Kind: kindRelease, Thread: t, Message: fmt.Sprintf("%s: lock not held", o)}
		}
		*y.owner(o.L) = 0
	case opAssert:
		if *y.reg(o.Reg) == int32(o.V) {
			return &sched.Failure{Kind: kindAssert, Thread: t, Message: fmt.Sprintf("%s failed", o)}
		}
	}
	return nil
}

func (y *toySystem) Final() *sched.Failure {
	if y.p.FinalCheck && *y.reg(y.p.FinalReg) == int32(y.p.FinalV) {
		return &sched.Failure{Kind: kindFinal, Thread: -1, Message: fmt.Sprintf("r%d == %d at the end", y.p.FinalReg, y.p.FinalV)}
	}
	return nil
}

func (y *toySystem) Clone() sched.System {
	return &toySystem{p: y.p, s: append([]int32(nil), y.s...)}
}

// Acyclic implements sched.Futures: every step moves its thread's pc on
// (spinSystem's busy-waits do not).
func (y *toySystem) Acyclic() bool { return true }

// CopyFrom implements sched.Copier, so that searches recycle toy states.
func (y *toySystem) CopyFrom(src sched.System) {
	o := src.(*toySystem)
	if o.p != y.p {
		panic("toy: CopyFrom between systems of different programs")
	}
	copy(y.s, o.s)
}

func (y *toySystem) AppendKey(b []byte) []byte {
	for _, v := range y.s {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// recorder wraps a System and records, in sets its clones share, the key
// of every state Final is called on and, when tolerant, the kind of every
// failure of a step or of Final, which it then hides so that a search goes
// on past it. A tolerant recorder turns "find the first failure" into
// "visit every transition", whose failures can be compared as a set.
//
// A recorder is not a sched.Copier, so searches clone it; a
// copyingRecorder is, so searches recycle its states.
type recorder struct {
	sched.System
	tolerant bool
	mu       *sync.Mutex // guards the maps, which the clones share
	finals   map[string]bool
	kinds    map[string]bool
}

func newRecorder(s sched.System, tolerant bool) *recorder {
	return &recorder{System: s, tolerant: tolerant, mu: new(sync.Mutex), finals: map[string]bool{}, kinds: map[string]bool{}}
}

// Acyclic implements sched.Futures for the recorder's system.
func (r *recorder) Acyclic() bool {
	a, ok := r.System.(sched.Futures)
	return ok && a.Acyclic()
}

// system is r as a search sees it: a Copier when copying is set.
func (r *recorder) system(copying bool) sched.System {
	if copying {
		return copyingRecorder{r}
	}
	return r
}

func (r *recorder) Step(t sched.ThreadID) *sched.Failure {
	f := r.System.Step(t)
	if f != nil && r.tolerant {
		r.mu.Lock()
		r.kinds[f.Kind] = true
		r.mu.Unlock()
		return nil
	}
	return f
}

func (r *recorder) Final() *sched.Failure {
	key := string(r.System.AppendKey(nil))
	f := r.System.Final()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finals[key] = true
	if f != nil && r.tolerant {
		r.kinds[f.Kind] = true
		return nil
	}
	return f
}

func (r *recorder) Clone() sched.System {
	c := *r
	c.System = r.System.Clone()
	return &c
}

type copyingRecorder struct{ *recorder }

func (c copyingRecorder) Clone() sched.System {
	return copyingRecorder{c.recorder.Clone().(*recorder)}
}

func (c copyingRecorder) CopyFrom(src sched.System) {
	c.System.(sched.Copier).CopyFrom(src.(copyingRecorder).System)
}

// The optional interfaces the toy systems implement, asserted so that a
// renamed method fails the build instead of quietly leaving a search on
// its plain path.
var (
	_ sched.Copier    = (*toySystem)(nil)
	_ sched.Futures   = (*toySystem)(nil)
	_ sched.Futures   = (*recorder)(nil)
	_ sched.Futures   = spinSystem{}
	_ sched.Futures   = (*blockingSystem)(nil)
	_ sched.Copier    = copyingRecorder{}
	_ sched.Canonical = symToy{}
	_ sched.Canonical = (*fan)(nil)
)
