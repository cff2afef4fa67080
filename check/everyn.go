package check

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// The proof for every number of threads per block (-threads all): a
// counter abstraction, docs/every-n.md. In short:
//
// A world of one block is a census (model.Census): its shared part, its
// host, and its GPU threads, none of which names another. Threads with the
// same block of slots are alike, so the world is the shared part and how
// many threads sit in each local state (a class). Only the count entries
// grow with N; a ghost makes them a function of the classes: each thread
// carries the sum of the changes its own steps made to each count (the
// host's and those of threads outside every swapped_cuda_module go to a
// shared base), so count = base + the sum of the threads' ghosts, exactly,
// at every N. A tmp that holds a count is kept relative to it, where the
// search at small N saw it so.
//
// The abstract state keeps each class's number of threads up to Cap and
// says "many" above it (a class holding a lock is always exact). A step
// is taken on four worlds put together from the abstract state (see
// successors): two give the successors where the class the step takes a
// thread from falls to Cap or stays many, and two must agree with them,
// else the step reads N beyond what the abstraction keeps and the proof
// stops, incomplete; so does a count that could still reach 0 as a many
// class grows (saturated). Every successor's count is the base plus the
// ghosts again, or the proof stops. When the abstract states close with no
// violation and no stop, every N is verified: each reachable world of any
// N abstracts to one of them (induction over its path; the two facts the
// argument rests on are in docs/every-n.md).
//
// Before that, the explicit search runs for N = 1..Explicit (smallest
// first), so a buggy variant is refuted at its smallest N with a real
// trace.

// EveryNConfig is a proof's world and bounds.
type EveryNConfig struct {
	Protocol  *model.Protocol
	Shape     scenario.Shape // Threads is ignored
	Atomicity model.Atomicity
	// Explicit is the largest N the explicit search runs for (default 4).
	Explicit int
	// MaxCap is the most threads per class the abstraction may count
	// exactly: it tries 0 (a class is empty or many), then 1, up to
	// MaxCap, while the one before stopped short of a proof for a reason
	// a finer count can remove (default 2).
	MaxCap int
	// MaxStates bounds the abstract states (default 2,000,000).
	MaxStates int
	// Timeout bounds the whole proof (0: none).
	Timeout time.Duration
	// broken makes the abstraction wrong on purpose (tests).
	broken brokenEveryN
}

// brokenEveryN names a proof broken on purpose, for the test that checks
// the soundness test catches one.
type brokenEveryN uint8

const (
	everyNSound brokenEveryN = iota
	// brokenNoFall never takes the successor where a many class falls
	// to Cap threads.
	brokenNoFall
)

// EveryNVerdict is a proof's outcome.
type EveryNVerdict string

const (
	EveryNVerified   EveryNVerdict = "verified"
	EveryNRefuted    EveryNVerdict = "refuted"
	EveryNIncomplete EveryNVerdict = "incomplete"
)

// EveryNResult is what a proof found.
type EveryNResult struct {
	Verdict EveryNVerdict
	// RefutedAt is the smallest N with a counterexample; Failure is it.
	RefutedAt int
	Failure   *sched.Failure
	// Reason says why a proof is incomplete; Attempts, why each count
	// that did not prove it stopped.
	Reason   string
	Attempts []string
	// ExplicitStates[n-1] is the states the explicit search stored for n
	// threads.
	ExplicitStates []int
	// AbstractStates, Classes and Steps measure the abstract search:
	// states, thread classes met, abstract steps taken.
	AbstractStates, Classes, Steps int
	// Cap is the count of the last abstraction tried (the proof's).
	Cap     int
	Elapsed time.Duration
}

// ProveEveryN runs the explicit search for N = 1..Explicit, then the
// counter abstraction. An error is a world the proof does not treat.
func ProveEveryN(cfg EveryNConfig) (*EveryNResult, error) { return newProver(cfg).prove() }

func newProver(cfg EveryNConfig) *prover {
	if cfg.Explicit <= 0 {
		cfg.Explicit = 4
	}
	if cfg.MaxCap <= 0 {
		cfg.MaxCap = 2
	}
	if cfg.MaxStates <= 0 {
		cfg.MaxStates = 2_000_000
	}
	pv := &prover{cfg: cfg, programs: map[int]*model.Program{}, tmpModes: map[string]*tmpMode{},
		classes: newTable[class](), shareds: newTable[shared]()}
	return pv
}

func (pv *prover) prove() (*EveryNResult, error) {
	cfg := pv.cfg
	start := time.Now()
	if cfg.Timeout > 0 {
		pv.deadline = start.Add(cfg.Timeout)
	}
	if _, err := pv.program(1); err != nil {
		return nil, err
	}
	res := &EveryNResult{}
	for n := 1; n <= cfg.Explicit; n++ {
		states, f, err := pv.explicit(n, nil)
		if errors.Is(err, errLate) {
			res.Verdict, res.Elapsed = EveryNIncomplete, time.Since(start)
			res.Reason = fmt.Sprintf("the timeout passed in the explicit search for N = %d", n)
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		res.ExplicitStates = append(res.ExplicitStates, states)
		if f != nil {
			res.Verdict, res.RefutedAt, res.Failure = EveryNRefuted, n, f
			res.Elapsed = time.Since(start)
			return res, nil
		}
	}
	for c := 0; c <= cfg.MaxCap; c++ {
		// the abstract search's tables start afresh: the explicit
		// search's classes keep every tmp as it is
		pv.classes, pv.shareds = newTable[class](), newTable[shared]()
		pv.cap, pv.states, pv.steps = c, 0, 0
		stop := pv.abstract(nil)
		res.Cap, res.AbstractStates, res.Classes, res.Steps = c, pv.states, len(pv.classes.items), pv.steps
		res.Elapsed = time.Since(start)
		if stop == nil {
			res.Verdict = EveryNVerified
			return res, nil
		}
		res.Attempts = append(res.Attempts, fmt.Sprintf("counting to %d: %s", c, stop.reason))
		if stop.final {
			break
		}
	}
	res.Verdict, res.Reason = EveryNIncomplete, strings.Join(res.Attempts, "; ")
	return res, nil
}

// errLate is the explicit search stopped by the timeout: the proof is
// incomplete, not a world it does not treat.
var errLate = errors.New("the timeout passed")

// stop is why an abstract search stopped short of a proof; final: a
// finer count cannot help (a bound was reached).
type stop struct {
	reason string
	final  bool
}

type prover struct {
	cfg      EveryNConfig
	deadline time.Time
	programs map[int]*model.Program
	// tmpModes: per thread block with its live tmps zeroed and per tmp,
	// what the explicit search saw of it
	tmpModes map[string]*tmpMode
	// the class and shared-part tables
	classes table[class]
	shareds table[shared]
	cap     int // the abstraction's: threads per class counted exactly
	// frozen: the explicit search learns no more tmp modes (the tests'
	// coverage check, after a proof)
	frozen bool
	states int
	steps  int
	// scratch is classID's and sharedID's key buffer; zeros, a ghost of
	// no change (shared, never written)
	scratch []byte
	zeros   []int32
	// reached are the keys of the last abstract search's states, for the
	// tests' coverage check (which would otherwise search a second time:
	// half of TestEveryNCoversExplicitStates's time)
	reached map[string]bool
}

// tmpMode is what the explicit search saw of one tmp: whether it was
// always the same value, and whether always the count plus the same
// offset.
type tmpMode struct {
	value, offset int32
	seen          bool
	constant, rel bool
}

// relative: the tmp is kept as its offset from the count.
func (m *tmpMode) relative() bool { return m != nil && !m.constant && m.rel }

// class is a local state of a GPU thread: its block (relative tmps as
// offsets), the locks it holds and its ghost per module.
type class struct {
	block []int16
	held  []int16
	ghost []int32
}

// shared is a world's part outside its GPU threads: the census's shared
// slots and host, and the base of each count.
type shared struct {
	slots, host, hostHeld []int16
	base                  []int32
}

// cell is a class and how many threads are in it (many: Cap+1).
type cell struct {
	class int32
	n     int32
}

// astate is a state of the abstraction (or, with no cap, of the explicit
// search up to symmetry): a shared part and the threads per class, sorted
// by class.
type astate struct {
	shared int32
	cells  []cell
}

// cellOf is the number of threads a has in class c (0: none).
func (a *astate) cellOf(c int32) int32 {
	for _, x := range a.cells {
		if x.class == c {
			return x.n
		}
	}
	return 0
}

func (a *astate) key() string {
	b := binary.AppendUvarint(nil, uint64(a.shared))
	for _, c := range a.cells {
		b = binary.AppendUvarint(b, uint64(c.class))
		b = binary.AppendUvarint(b, uint64(c.n))
	}
	return string(b)
}

func (pv *prover) program(n int) (*model.Program, error) {
	if p, ok := pv.programs[n]; ok {
		return p, nil
	}
	sh := pv.cfg.Shape
	sh.Threads = n
	sc, err := sh.Build()
	if err != nil {
		return nil, err
	}
	p, err := model.NewProgram(sc, pv.cfg.Protocol, pv.cfg.Atomicity)
	if err != nil {
		return nil, err
	}
	if err := p.CensusError(); err != nil {
		return nil, fmt.Errorf("-threads all treats one host, one launch of one block, no faults, no shared memory, no syncthreads and no branch on the thread index; this scenario has %v", err)
	}
	pv.programs[n] = p
	return p, nil
}

// ghosts is the ghost state beside a concrete world: per GPU thread and
// module the changes to the count its steps made, and per module the base.
type ghosts struct {
	thread [][]int32
	base   []int32
}

// noGhosts is the ghosts of p's initial world: all zero.
func noGhosts(p *model.Program) ghosts {
	M := len(p.Scenario.Modules)
	g := ghosts{base: make([]int32, M)}
	for range p.BlockThreads(0) {
		g.thread = append(g.thread, make([]int32, M))
	}
	return g
}

// clone copies g into one allocation.
func (g ghosts) clone() ghosts {
	n := len(g.base)
	for _, t := range g.thread {
		n += len(t)
	}
	buf := make([]int32, 0, n)
	take := func(s []int32) []int32 {
		i := len(buf)
		buf = append(buf, s...)
		return buf[i:len(buf):len(buf)]
	}
	c := ghosts{base: take(g.base), thread: make([][]int32, len(g.thread))}
	for i, t := range g.thread {
		c.thread[i] = take(t)
	}
	return c
}

// concrete is a world of the explicit search with its ghosts.
type concrete struct {
	w *model.World
	g ghosts
}

// explicit searches every interleaving of n threads, up to symmetry,
// breadth first, and returns the states it stored and the first failure.
// Each state it stores is passed to visit, when set. It learns the tmps'
// modes as it goes.
func (pv *prover) explicit(n int, visit func(c *model.Census, g ghosts)) (int, *sched.Failure, error) {
	p, err := pv.program(n)
	if err != nil {
		return 0, nil, err
	}
	init := concrete{w: model.New(p), g: noGhosts(p)}
	cen, err := init.w.Census()
	if err != nil {
		return 0, nil, err
	}
	k, err := pv.exactKey(p, cen, init.g)
	if err != nil {
		return 0, nil, err
	}
	seen := map[string]bool{k: true}
	queue := []concrete{init}
	for len(queue) > 0 {
		if pv.late() {
			return 0, nil, errLate
		}
		cur := queue[0]
		queue = queue[1:]
		c, err := cur.w.Census()
		if err != nil {
			return 0, nil, err
		}
		if !pv.frozen {
			pv.learn(p, c)
		}
		if visit != nil {
			visit(c, cur.g)
		}
		sys := wrapWorld(cur.w)
		moved := false
		for t := range p.NumThreads() {
			if sys.Status(sched.ThreadID(t)) != sched.Runnable {
				continue
			}
			moved = true
			next := wrapWorld(cur.w.Clone())
			if f := next.Step(sched.ThreadID(t)); f != nil {
				return len(seen), f, nil
			}
			nc, after, err := pv.charged(p, c, next.w, cur.g, t)
			if err != nil {
				return 0, nil, err
			}
			k, err := pv.exactKey(p, after, nc.g)
			if err != nil {
				return 0, nil, err
			}
			if !seen[k] {
				seen[k] = true
				queue = append(queue, nc)
			}
		}
		if !moved {
			if f := sched.Terminal(sys); f != nil {
				return len(seen), f, nil
			}
		}
	}
	return len(seen), nil, nil
}

// wrapWorld is w under the invariants the searches check (ScopeHarmful).
func wrapWorld(w *model.World) *System {
	return systemOf(w, ScopeHarmful)
}

// charged is world w, after thread t's step (t numbered as the world
// numbers threads), with ghosts g given the change each count made in the
// step: to t's ghost, or to the base when t is the host; before is the
// census before the step. It returns w's census too.
func (pv *prover) charged(p *model.Program, before *model.Census, w *model.World, g ghosts, t int) (concrete, *model.Census, error) {
	after, err := w.Census()
	if err != nil {
		return concrete{}, nil, err
	}
	nc := concrete{w: w, g: g.clone()}
	i := slices.Index(p.BlockThreads(0), t)
	for m := range after.Counts {
		d := after.Counts[m] - before.Counts[m]
		if i < 0 {
			nc.g.base[m] += d
		} else {
			nc.g.thread[i][m] += d
		}
	}
	return nc, after, nil
}

// learn notes the tmps of census c.
func (pv *prover) learn(p *model.Program, c *model.Census) {
	for _, b := range c.Threads {
		slots, mods := p.Tmps(b)
		if len(slots) == 0 {
			continue
		}
		mk := maskedKey(b, slots)
		for j, s := range slots {
			k := tmpKey(mk, s)
			m := pv.tmpModes[k]
			if m == nil {
				m = &tmpMode{}
				pv.tmpModes[k] = m
			}
			v, off := int32(b[s]), int32(b[s])-c.Counts[mods[j]]
			if !m.seen {
				m.seen, m.value, m.offset, m.constant, m.rel = true, v, off, true, true
				continue
			}
			m.constant = m.constant && v == m.value
			m.rel = m.rel && off == m.offset
		}
	}
}

// tmpKey names tmp slot s of the blocks whose masked key is mk.
func tmpKey(mk string, s int) string { return mk + string(rune(s)) }

func maskedKey(b []int16, slots []int) string {
	c := slices.Clone(b)
	for _, s := range slots {
		c[s] = 0
	}
	return string(int16Bytes(nil, c))
}

func int16Bytes(b []byte, s []int16) []byte {
	for _, v := range s {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b
}

func int32Bytes(b []byte, s []int32) []byte {
	for _, v := range s {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// exactKey is the explicit search's key of a census with its ghosts: its
// abstraction with no cap and every tmp kept as it is.
func (pv *prover) exactKey(p *model.Program, c *model.Census, g ghosts) (string, error) {
	a, err := pv.abstractOf(p, c, g, -1, false)
	if err != nil {
		return "", err
	}
	return a.key(), nil
}

// abstractOf is the abstract state of a census with its ghosts: threads
// outside every swapped_cuda_module give their ghost to the base; counts
// above cap (when cap >= 0) in a class holding no lock become many; tmps kept relative where learned
// so (when relTmps). It checks that each count is the base plus the
// ghosts.
func (pv *prover) abstractOf(p *model.Program, c *model.Census, g ghosts, cap int, relTmps bool) (*astate, error) {
	base := slices.Clone(g.base)
	type tc struct {
		block []int16
		ghost []int32
		held  []int16
	}
	if len(pv.zeros) != len(base) {
		pv.zeros = make([]int32, len(base))
	}
	threads := make([]tc, 0, len(c.Threads))
	for i, b := range c.Threads {
		gh := g.thread[i]
		if p.Outside(b) {
			for m := range base {
				base[m] += gh[m]
			}
			gh = pv.zeros
		}
		threads = append(threads, tc{b, gh, c.Held[i]})
	}
	for m := range c.Counts {
		sum := base[m]
		for _, t := range threads {
			sum += t.ghost[m]
		}
		if sum != c.Counts[m] {
			return nil, fmt.Errorf("module %d's count is %d, its base and ghosts %d", m, c.Counts[m], sum)
		}
	}
	sh := shared{slots: c.Shared, host: c.Host, hostHeld: c.HostHeld, base: base}
	a := &astate{shared: pv.sharedID(sh)}
	// the threads per class (few classes: a slice, not a map)
	for _, t := range threads {
		block := t.block
		if relTmps {
			block = pv.encodeTmps(p, block, c.Counts)
		}
		id := pv.classID(class{block: block, held: t.held, ghost: t.ghost})
		if i := slices.IndexFunc(a.cells, func(x cell) bool { return x.class == id }); i >= 0 {
			a.cells[i].n++
		} else {
			a.cells = append(a.cells, cell{id, 1})
		}
	}
	for i := range a.cells {
		if x := &a.cells[i]; cap >= 0 && x.n > int32(cap) && len(pv.classes.items[x.class].held) == 0 {
			x.n = int32(cap) + 1
		}
	}
	slices.SortFunc(a.cells, func(x, y cell) int { return int(x.class) - int(y.class) })
	return a, nil
}

// encodeTmps is block with each tmp the explicit search saw relative to
// its count as its offset from it; decodeTmps undoes it for the counts of
// a world put together.
func (pv *prover) encodeTmps(p *model.Program, b []int16, counts []int32) []int16 {
	return pv.shiftTmps(p, b, counts, -1)
}

func (pv *prover) decodeTmps(p *model.Program, b []int16, counts []int32) []int16 {
	return pv.shiftTmps(p, b, counts, +1)
}

// shiftTmps adds sign times its count to each relative tmp of b.
func (pv *prover) shiftTmps(p *model.Program, b []int16, counts []int32, sign int32) []int16 {
	slots, mods := p.Tmps(b)
	if len(slots) == 0 {
		return b
	}
	mk := maskedKey(b, slots)
	out := slices.Clone(b)
	for j, s := range slots {
		if pv.tmpModes[tmpKey(mk, s)].relative() {
			out[s] = int16(int32(b[s]) + sign*counts[mods[j]])
		}
	}
	return out
}

// table numbers values by their keys, in the order they are met.
type table[T any] struct {
	of    map[string]int32
	items []T
}

func newTable[T any]() table[T] { return table[T]{of: map[string]int32{}} }

// id is the number of the value keyed k, v when it is new. k may be a
// scratch buffer: it is copied only when new.
func (t *table[T]) id(k []byte, v T) int32 {
	if id, ok := t.of[string(k)]; ok {
		return id
	}
	t.items = append(t.items, v)
	t.of[string(k)] = int32(len(t.items) - 1)
	return int32(len(t.items) - 1)
}

// classID and sharedID write the key in the prover's scratch buffer:
// the abstract search keys every thread of every world it puts together
// (BenchmarkEveryN, -memprofile: growing a fresh key was a fifth of its
// allocations).
func (pv *prover) classID(c class) int32 {
	b := binary.AppendUvarint(int16Bytes(pv.scratch[:0], c.block), uint64(len(c.held)))
	pv.scratch = int32Bytes(int16Bytes(b, c.held), c.ghost)
	return pv.classes.id(pv.scratch, c)
}

func (pv *prover) sharedID(s shared) int32 {
	b := binary.AppendUvarint(int16Bytes(int16Bytes(pv.scratch[:0], s.slots), s.host), uint64(len(s.hostHeld)))
	pv.scratch = int32Bytes(int16Bytes(b, s.hostHeld), s.base)
	return pv.shareds.id(pv.scratch, s)
}

func (pv *prover) late() bool { return !pv.deadline.IsZero() && time.Now().After(pv.deadline) }

// many reports whether c stands for more than Cap threads: a class that
// holds a lock has one thread at most, and is counted exactly.
func (pv *prover) many(c cell) bool {
	return c.n > int32(pv.cap) && len(pv.classes.items[c.class].held) == 0
}

// materialize puts abstract state a together with Cap+extra(class)
// threads in each many class, and returns the world, its ghosts, and each
// GPU thread's class in world order.
func (pv *prover) materialize(a *astate, extra func(class int32) int) (concrete, []int32, error) {
	sh := pv.shareds.items[a.shared]
	total := 0
	for _, c := range a.cells {
		if pv.many(c) {
			total += pv.cap + extra(c.class)
		} else {
			total += int(c.n)
		}
	}
	order := make([]int32, 0, total)
	var late []int32 // classes of threads not started go last
	for _, c := range a.cells {
		n := c.n
		if pv.many(c) {
			n = int32(pv.cap + extra(c.class))
		}
		for range n {
			if model.NotStarted(pv.classes.items[c.class].block) {
				late = append(late, c.class)
			} else {
				order = append(order, c.class)
			}
		}
	}
	order = append(order, late...)
	p, err := pv.program(len(order))
	if err != nil {
		return concrete{}, nil, err
	}
	counts := slices.Clone(sh.base)
	for _, id := range order {
		for m, gh := range pv.classes.items[id].ghost {
			counts[m] += gh
		}
	}
	cen := &model.Census{Shared: slices.Clone(sh.slots), Host: slices.Clone(sh.host), HostHeld: sh.hostHeld, Counts: counts,
		Threads: make([][]int16, 0, len(order)), Held: make([][]int16, 0, len(order))}
	g := ghosts{base: slices.Clone(sh.base), thread: make([][]int32, 0, len(order))}
	for _, id := range order {
		cl := pv.classes.items[id]
		cen.Threads = append(cen.Threads, pv.decodeTmps(p, cl.block, counts))
		cen.Held = append(cen.Held, cl.held)
		g.thread = append(g.thread, slices.Clone(cl.ghost))
	}
	w, err := p.FromCensus(cen)
	if err != nil {
		return concrete{}, nil, err
	}
	return concrete{w: w, g: g}, order, nil
}

// abstract runs the abstract search from the abstractions of the initial
// worlds of 1..Cap threads and of Cap+1 or more (one state: the class of
// threads not started is many). It returns why the proof stopped, nil when the states
// closed. Each state it stores is passed to visit, when set.
func (pv *prover) abstract(visit func(a *astate)) *stop {
	cap := pv.cap
	seen := map[string]bool{}
	defer func() { pv.states, pv.reached = len(seen), seen }()
	var queue []*astate
	for n := 1; n <= cap+1; n++ {
		p, err := pv.program(n)
		if err != nil {
			return &stop{reason: err.Error()}
		}
		w, g := model.New(p), noGhosts(p)
		cen, err := w.Census()
		if err != nil {
			return &stop{reason: err.Error()}
		}
		a, err := pv.abstractOf(p, cen, g, cap, true)
		if err != nil {
			return &stop{reason: err.Error()}
		}
		if k := a.key(); !seen[k] {
			seen[k] = true
			queue = append(queue, a)
		}
	}
	for len(queue) > 0 {
		if pv.late() {
			return &stop{reason: fmt.Sprintf("the timeout passed after %d abstract states", len(seen)), final: true}
		}
		if len(seen) > pv.cfg.MaxStates {
			pv.states = len(seen)
			return &stop{reason: fmt.Sprintf("more than %d abstract states", pv.cfg.MaxStates), final: true}
		}
		a := queue[0]
		queue = queue[1:]
		if visit != nil {
			visit(a)
		}
		succ, why := pv.successors(a)
		if why != "" {
			return &stop{reason: why}
		}
		for _, s := range succ {
			if k := s.key(); !seen[k] {
				seen[k] = true
				queue = append(queue, s)
			}
		}
	}
	pv.states = len(seen)
	return nil
}

// The four worlds a step is taken on (see successors): every many class
// at Cap+1 threads (the class the step takes a thread from falls to Cap);
// that class at Cap+1 and the others at Cap+2; all at Cap+2 (it stays
// many); all at Cap+3.
const (
	worldFalls = iota
	worldFallsOthersMore
	worldStays
	worldStaysMore
	numWorlds
)

// built is a world put together from an abstract state, its GPU threads'
// classes in world order, and its census.
type built struct {
	c     concrete
	order []int32
	cen   *model.Census
}

// successors are a's abstract successors, or why the proof stops at a.
//
// A mover (the host, or a thread of a class) steps in four worlds put
// together from a. The class the step takes a thread from (the mover's,
// or for the host the class of threads not started) falls to Cap in the
// first, and stays many in the third: both are successors. The second
// must give the first's successor and the fourth the third's: a step
// whose outcome tells Cap+1 from Cap+2, or Cap+2 from Cap+3, threads in
// a class it does not take from reads the number of threads beyond what
// the abstraction keeps, and the proof stops there.
func (pv *prover) successors(a *astate) ([]*astate, string) {
	cap := pv.cap
	notStarted := int32(-1)
	for _, c := range a.cells {
		if model.NotStarted(pv.classes.items[c.class].block) {
			notStarted = c.class
		}
	}
	// The worlds every mover shares (the second is the mover's own,
	// unless no other class is many), each with its census.
	build := func(extra func(int32) int) (*built, string) {
		c, order, err := pv.materialize(a, extra)
		if err != nil {
			return nil, fmt.Sprintf("an abstract state cannot be put together: %v", err)
		}
		cen, err := c.w.Census()
		if err != nil {
			return nil, err.Error()
		}
		return &built{c, order, cen}, ""
	}
	var common [numWorlds]*built
	for e, n := range map[int]int{worldFalls: 1, worldStays: 2, worldStaysMore: 3} {
		b, why := build(func(int32) int { return n })
		if why != "" {
			return nil, why
		}
		common[e] = b
	}
	many := 0
	for _, c := range a.cells {
		if pv.many(c) {
			many++
		}
	}
	if why := pv.saturated(a, common[worldStays], func(int32) bool { return true }); why != "" {
		return nil, why
	}
	var out []*astate
	movers := []int32{-1} // -1: the host
	for _, c := range a.cells {
		movers = append(movers, c.class)
	}
	anyRunnable := false
	for _, mv := range movers {
		falls := mv
		if mv < 0 {
			falls = notStarted
		}
		if why := pv.saturated(a, common[worldFalls], func(c int32) bool { return c != falls }); why != "" {
			return nil, why
		}
		worlds := common
		if many > 1 || many == 1 && (falls < 0 || !pv.many(cell{falls, a.cellOf(falls)})) {
			b, why := build(func(c int32) int {
				if c == falls {
					return 1
				}
				return 2
			})
			if why != "" {
				return nil, why
			}
			worlds[worldFallsOthersMore] = b
		} else {
			worlds[worldFallsOthersMore] = common[worldFalls]
		}
		var results [numWorlds]*astate
		var ts [numWorlds]int
		ready := 0
		for e, w := range worlds {
			if mv >= 0 {
				ts[e] = w.c.w.Program().BlockThreads(0)[slices.Index(w.order, mv)]
			}
			if wrapWorld(w.c.w).Status(sched.ThreadID(ts[e])) == sched.Runnable {
				ready++
			}
		}
		switch ready {
		case 0:
			continue
		case numWorlds:
		default:
			return nil, fmt.Sprintf("a step is ready with some of %d, %d and %d threads in a many class and not with the others", cap+1, cap+2, cap+3)
		}
		anyRunnable = true
		for e := range worlds {
			if e == worldFallsOthersMore && worlds[e] == worlds[worldFalls] {
				results[e] = results[worldFalls]
				continue
			}
			cur, before, t := worlds[e].c, worlds[e].cen, ts[e]
			p := cur.w.Program()
			next := wrapWorld(cur.w.Clone())
			pv.steps++
			if f := next.Step(sched.ThreadID(t)); f != nil {
				return nil, fmt.Sprintf("the abstraction reaches a violation (%s: %s) with %d threads in a many class; the explicit search found none up to %d threads", f.Kind, f.Message, p.NumThreads()-1, pv.cfg.Explicit)
			}
			nc, after, err := pv.charged(p, before, next.w, cur.g, t)
			if err != nil {
				return nil, err.Error()
			}
			s, err := pv.abstractOf(p, after, nc.g, cap, true)
			if err != nil {
				return nil, err.Error()
			}
			results[e] = s
		}
		if results[worldFalls].key() != results[worldFallsOthersMore].key() || results[worldStays].key() != results[worldStaysMore].key() {
			return nil, fmt.Sprintf("a step's outcome tells %d from %d threads in a class it does not take from: it reads the number of threads beyond what the abstraction keeps (Cap %d)", cap+1, cap+3, cap)
		}
		if pv.cfg.broken != brokenNoFall {
			out = append(out, results[worldFalls])
		}
		out = append(out, results[worldStays])
	}
	if !anyRunnable {
		for _, b := range common {
			if b == nil {
				continue
			}
			if f := sched.Terminal(wrapWorld(b.c.w)); f != nil {
				return nil, fmt.Sprintf("the abstraction reaches a failing end (%s: %s); the explicit search found none up to %d threads", f.Kind, f.Message, pv.cfg.Explicit)
			}
		}
	}
	return out, ""
}

// saturated checks the assumption that lets a world of Cap+1 (or Cap+2)
// threads per many class stand for every larger number (docs/every-n.md):
// the model reads a count entry, and a tmp loaded from it, only by
// comparing it with 0 (== 0, != 0, < 1, >= 1), so a step cannot tell one
// value from another of the same sign (below 0, 0, above 0). A count is
// base plus each thread's ghost, so as the many classes the varying set
// picks grow past b's numbers, each count of a module they hold a ghost
// of moves one way: it must already be 1 or more in b (with its tmps),
// growing. A count that the classes push both ways, or down, stops the
// proof.
func (pv *prover) saturated(a *astate, b *built, varying func(class int32) bool) string {
	p := b.c.w.Program()
	for m := range b.cen.Counts {
		up, down := false, false
		for _, c := range a.cells {
			if !pv.many(c) || !varying(c.class) {
				continue
			}
			switch g := pv.classes.items[c.class].ghost[m]; {
			case g > 0:
				up = true
			case g < 0:
				down = true
			}
		}
		if !up && !down {
			continue
		}
		low := b.cen.Counts[m]
		for _, t := range b.cen.Threads {
			slots, mods := p.Tmps(t)
			mk := ""
			if len(slots) > 0 {
				mk = maskedKey(t, slots)
			}
			for j, s := range slots {
				if mods[j] == m && pv.tmpModes[tmpKey(mk, s)].relative() {
					low = min(low, int32(t[s]))
				}
			}
		}
		if down || low < 1 {
			return fmt.Sprintf("module %d's count could be 0 for some number of threads in a many class and not for another (Cap %d)", m, pv.cap)
		}
	}
	return ""
}

// Describe is a one-line account of r.
func (r *EveryNResult) Describe(cfg EveryNConfig) string {
	var b strings.Builder
	switch r.Verdict {
	case EveryNVerified:
		fmt.Fprintf(&b, "verified for every number of threads per block (N >= 1): explicit search N = 1..%d, then counter abstraction (threads per local state counted 0..%d, then many): %d abstract states, %d thread classes",
			len(r.ExplicitStates), r.Cap, r.AbstractStates, r.Classes)
		if len(r.Attempts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(r.Attempts, "; "))
		}
	case EveryNRefuted:
		fmt.Fprintf(&b, "refuted at N = %d threads per block, the smallest (%s)", r.RefutedAt, r.Failure.Kind)
	case EveryNIncomplete:
		if r.Attempts == nil { // stopped before the abstraction began
			fmt.Fprintf(&b, "incomplete: %s", r.Reason)
			if n := len(r.ExplicitStates); n > 0 {
				fmt.Fprintf(&b, "; verified by the explicit search for N = 1..%d only", n)
			}
			break
		}
		fmt.Fprintf(&b, "incomplete: verified by the explicit search for N = 1..%d only; the counter abstraction stopped: %s", len(r.ExplicitStates), r.Reason)
	}
	return b.String()
}
