package source

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"swapcheck/model"
	"swapcheck/pyvm"
)

// Transactions: the reduction a search of source-loaded code makes
// (Program.Reduced), Lipton's reduction by movers (Lipton 1975; as
// Flanagan and Qadeer's "Transactions for software model checking",
// 2003, applies it to a model checker), with the locking discipline it
// rests on checked as the search runs, by Eraser's locksets kept along
// each path (Savage et al. 1997; Stoller's "Model-checking
// multi-threaded distributed Java programs", STTT 2002, shows a lockset
// check made on the reduced state space sound for the full one).
//
// Each instruction a thread runs is one of:
//
//   - a right mover (R): a lock's acquire (no other thread's step
//     between it and the thread's next one can see the difference: the
//     lock stays held by this thread, and the steps of others that
//     could tell, their acquires of it, cannot run);
//   - a left mover (L): a lock's release;
//   - a both-mover (B): an instruction that touches only the thread's
//     own frame and unpublished objects, or locations whose every
//     conflicting access by any thread holds a lock this one holds
//     (no other thread's conflicting step can fall between it and its
//     neighbours);
//   - a non-mover (N): anything else (an access to a location read or
//     written without a common lock, a lock's state read without an
//     acquire, a statement of the simulator's code but one: a device
//     call's read of _kernel_context is a both-mover where
//     txFlags.ctxMover says no write of it can fall while the call
//     can run, and a GPU thread's use of cuda is one where no kernel
//     raises: see "Uses" below).
//
// A step is a transaction: the thread runs R and B instructions until it
// runs an N or an L (the commit), and stops after it; it also stops where
// an unreduced step would stop for another reason (a statement of the
// simulator's code, a lock that blocks, the end of its work). Every
// execution of the unreduced world is equivalent (same states at every
// transaction's end, same failures, same deadlocks) to one whose
// transactions run back to back, so a search of transactions meets every
// violation, deadlock and end state the unreduced search meets.
//
// Which locations are protected is not declared: each location (a dict
// entry, a dict's shape, an object's whole state; pyvm.Access) carries,
// along the path that reached the state, the locks held by every access
// so far (ca), by every write (cw), by every read taken as a mover (mr)
// and by every write taken as a mover (mw). A read is a mover when some
// lock it holds is held by every write and by every mover read; a write
// when some lock it holds is held by every access and every mover
// write. A later access that breaks what an earlier mover assumed (a
// write with no lock common to the mover reads; an access with none
// common to the mover writes) is a break: the path exists, so the
// discipline fails in the full world, and the assumption was wrong. The
// search goes on (any violation it finds is an execution of the file),
// but its "verified" is not taken: Search runs it again with that
// object's reads or writes always non-movers, until a search meets no
// break. Each rerun takes one more kind of access to one more part of an
// object (its entries, its shape) out of the movers, so they end: a part
// whose accesses of a kind are non-movers gets no mover of that kind
// again, an access to the whole object being a mover only when neither
// part forbids it. The locks and locksets are part of the state's
// key, so two paths that reach the same state with different histories
// are both followed.
//
// # Uses
//
// A GPU thread's use of cuda (cuda.local, the load of syncthreads) reads
// one global of its module and does nothing with what it read but judge
// it: it passes, and the thread goes on exactly as after any other value
// that passes, or it fails, and the execution ends there. Where no
// kernel raises (txFlags.noRaise: no thread is aborted or orphaned, so
// every use is judged so) such a read is a both-mover without a lockset:
// take an execution and move a use across a neighbour of another thread.
// The states after the two are the same (the use writes nothing but its
// thread's place). If the use passes in the new order too, the two
// executions differ in nothing; if it fails there, the new order is an
// execution of the file that fails at that use. Either way a search that
// takes the use with the transaction it is in meets a failure wherever
// some execution meets one, and the failure of the use itself, when
// that is the one, with the same value read: the steps of others before
// it in its transaction move before the transaction's start, the
// thread's own before the use move after them, and the value the use
// reads is the one it read. A use read through the file's
// __getattribute__ (proposed's dispatcher) runs the file's code on what
// it read, and a host's use raises AttributeError and goes on: neither
// is a mover.
//
// # Registries as sets
//
// A dict is ordered: two inserts of different keys, or an insert and a
// delete, do not commute, since the dict's order tells them apart. But
// only code that iterates the dict, takes its length or copies it (a
// read of its shape or of the whole of it; a write of the whole of it,
// clear()) sees the order. The search assumes of every set-up dict but
// the modules' globals (which the swaps iterate) that no code does,
// keys such a dict as a set of entries (pyvm's AppendKeyUnordered), and
// takes a write of its shape (an insert, a delete) as a both-mover with
// no lockset (the entry it writes keeps its own): it commutes with every
// other access an execution can make under the assumption. An access
// that breaks it (a read of the shape or of the whole, a write of the
// whole) is a break as a lockset's is: the search
// goes on, its verdict is not taken, and the next search keys that dict
// with its order and takes its shape writes as any other access. Up to
// the first break, an execution's prefix keeps the assumption, so the
// reduced search meets that break too.
//
// Where it applies: atomicity gil and the free-threaded modes (a step is
// an instruction there), no faults (an interrupt lands, and the raise
// fault falls, between the instructions a transaction joins), no loop
// that can come back to a state (the hang check's argument is about
// every step), and no threading.current_thread() (the simulator writes
// its abort flag outside the file's code). Elsewhere Reduced says why
// not, and the search runs every instruction alone.

// lockset is a set of locks by their index in World.txLocks (bit i);
// everyLock is the set of a location no access has touched yet (every
// lock is common to none).
type lockset uint32

const (
	everyLock lockset = ^lockset(0)
	// maxTxLocks locks get an index; a lock past them is held without
	// one, which only makes the locksets smaller: more non-movers and
	// breaks, never a mover too many.
	maxTxLocks = 31
)

// txKind is a kind of access to an object: its reads, its writes.
type txKind uint8

const (
	txReads txKind = 1 << iota
	txWrites
)

// txClass is an instruction's part in a transaction.
type txClass uint8

const (
	txBoth  txClass = iota // B: it moves both ways
	txRight                // R: an acquire
	txLeft                 // L: a release
	txNon                  // N
)

// txConfig is a reduced Program's: the parts of objects whose accesses
// are never movers, and the breaks its searches met.
type txConfig struct {
	// never[part]: reads or writes of that part of a set-up object are
	// non-movers; made: those of every object made during the search
	never map[txPart]txKind
	made  txKind

	mu     sync.Mutex
	broken map[txPart]txKind
	bMade  txKind
	// anyBreak: broken or bMade holds something (read without mu)
	anyBreak atomic.Bool

	txFlags
	// ordered: the set-up dicts keyed with their order ("Registries as
	// sets"); seen: those whose order a search saw (under mu)
	ordered map[int32]bool
	seen    map[int32]bool
}

// txFlags are what every search of one Program's reductions shares.
type txFlags struct {
	// broken reductions the tests must catch (export_test.go): breaks
	// not recorded; every access a mover
	ignoreBreaks, allMovers bool
	// noRaise: no kernel raises, so no thread is aborted or orphaned: a
	// GPU thread's use of cuda passes or ends the execution, and moves
	// both ways ("Uses"); a host's wait for its block is cut by a
	// frozen thread (futures.go).
	//
	// ctxMover: a device call's read of _kernel_context (kernel.py:85)
	// commutes with every step another thread can take while the call
	// can run: with one host, only the host writes it, before it starts
	// a launch's threads and after it has joined them all, so no write
	// falls while a GPU thread runs; and the host's own reads are its
	// own. Not so with several hosts (another host's launch sets it),
	// nor where a kernel raises (its block's other threads linger after
	// the host left the launch and reset it).
	noRaise, ctxMover bool
}

// newTx is a first search's record, with flags f.
func newTx(f txFlags) *txConfig {
	return &txConfig{txFlags: f, never: map[txPart]txKind{}, broken: map[txPart]txKind{}, ordered: map[int32]bool{}, seen: map[int32]bool{}}
}

// txPart names the part of a set-up object a break speaks of, in every
// state of the search (a set-up object's heap index is the same in all):
// a dict's entries (or an object's attributes), or its shape (its set of
// keys and their order). An access to the whole object touches both.
type txPart struct {
	obj   int32
	shape bool
}

// cell is one location the lockset check follows: an entry of a dict
// (or an attribute), a dict's shape, or, with loc LocWhole, the record
// of the accesses to the whole object, which every other cell of the
// object shares (a new cell starts from it).
type cell struct {
	obj            int32
	loc            pyvm.Loc
	key            pyvm.Value
	ca, cw, mr, mw lockset
}

func cellCmp(a, b *cell) int {
	if c := cmp.Compare(a.obj, b.obj); c != 0 {
		return c
	}
	if c := cmp.Compare(a.loc, b.loc); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key.K, b.key.K); c != 0 {
		return c
	}
	return cmp.Compare(a.key.X, b.key.X)
}

// Reduced is p with its steps made transactions (this file's reduction),
// or p itself and why not, when p's world is one the reduction does not
// cover. The two share everything else: a schedule of the reduced
// program's steps becomes one of p's by Expand.
func (p *Program) Reduced() (*Program, string) {
	if why := p.notReducible(); why != "" {
		return p, why
	}
	r := *p
	noRaise := !p.raises()
	r.tx = newTx(txFlags{noRaise: noRaise, ctxMover: noRaise && p.hosts == 1})
	r.roots = p.futureRoots()
	// every use of cuda reads its module's globals with no lock held:
	// no write to them is a mover, so say so before the first search;
	// and the swaps iterate them
	for _, g := range p.globals {
		r.tx.never[txPart{g.X, false}] |= txWrites
		r.tx.ordered[g.X] = true
	}
	return &r, ""
}

// notReducible says why the reduction does not apply to p's world, ""
// where it does.
func (p *Program) notReducible() string {
	switch {
	case p.Atomicity == model.GILBreaker:
		return "under gil-breaker a step already runs from one eval-breaker check to the next"
	case p.signal >= 0 || p.raiser >= 0:
		return "a fault lands between the instructions a transaction joins"
	case p.MayLoop():
		return "the file has a loop that can come back to a state (the hang check takes every instruction)"
	case p.threadObjs:
		return "the file calls threading.current_thread(), whose abort flag the simulator's code writes"
	}
	return ""
}

// raises reports whether some kernel or device function raises.
func (p *Program) raises() bool {
	for _, c := range p.codes {
		for _, st := range c.stmts {
			if st.raise {
				return true
			}
		}
	}
	return false
}

// Unreduced is p with every instruction a step (p itself when it is).
func (p *Program) Unreduced() *Program {
	if p.tx == nil {
		return p
	}
	r := *p
	r.tx = nil
	return &r
}

// rerun is the next search's Program after one that met breaks: their
// objects' kinds of access never movers. ok is false when there were
// none.
func (p *Program) rerun() (*Program, bool) {
	tx := p.tx
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if len(tx.broken) == 0 && tx.bMade == 0 && len(tx.seen) == 0 {
		return p, false
	}
	r := *p
	r.tx = newTx(tx.txFlags)
	r.tx.made = tx.made | tx.bMade
	maps.Copy(r.tx.ordered, tx.ordered)
	for x := range tx.seen {
		r.tx.ordered[x] = true
	}
	for x, k := range tx.never {
		r.tx.never[x] |= k
	}
	for x, k := range tx.broken {
		r.tx.never[x] |= k
	}
	return &r, true
}

// parts are the parts of its object cell c speaks of: its entries, its
// shape, or (the whole-record) both.
func (c *cell) parts() []txPart {
	switch c.loc {
	case pyvm.LocEntry:
		return []txPart{{c.obj, false}}
	case pyvm.LocShape:
		return []txPart{{c.obj, true}}
	}
	return []txPart{{c.obj, false}, {c.obj, true}}
}

// nonMover reports whether accesses of kind k to cell c are never movers.
func (w *World) nonMover(c *cell, k txKind) bool {
	tx := w.p.tx
	if !w.s.SetupObject(pyvm.Value{K: pyvm.KindRef, X: c.obj}) {
		return tx.made&k != 0
	}
	for _, pt := range c.parts() {
		if tx.never[pt]&k != 0 {
			return true
		}
	}
	return false
}

// broke records a break of kind k on cell c.
func (w *World) broke(c *cell, k txKind) {
	tx := w.p.tx
	if tx.ignoreBreaks {
		return
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.anyBreak.Store(true)
	if !w.s.SetupObject(pyvm.Value{K: pyvm.KindRef, X: c.obj}) {
		tx.bMade |= k
		return
	}
	for _, pt := range c.parts() {
		tx.broken[pt] |= k
	}
}

// txStep classifies the instruction in ran (not blocked) of thread t, and
// brings the locksets and the locks t holds up to date.
func (w *World) txStep(t int, in *pyvm.StepInfo) txClass {
	cls := txBoth
	held := w.th[t].held
	for _, a := range in.Accesses {
		if a.Const {
			continue
		}
		if w.s.IsLock(a.Obj) {
			if !lockOp(in.Locks, a.Obj) {
				cls = txNon // a lock's state read with no acquire (locked(), a failed try)
			}
			w.touches(a.Obj.X)
			continue
		}
		if w.unordered(a.Obj) {
			if a.Loc == pyvm.LocShape && a.Write {
				// "Registries as sets": a mover whatever its locks, and
				// kept out of the locksets, which only a read of the
				// shape would consult, and that read is a break of its
				// own (orderSeen). Kept in, two modules' inserts under
				// their own locks broke the shape's lockset, and merged
				// was searched twice for nothing.
				continue
			}
			if a.Loc != pyvm.LocEntry {
				w.orderSeen(a.Obj.X)
			}
		}
		mover := w.access(a.Obj.X, a.Loc, a.Key, a.Write, held)
		if !mover {
			cls = txNon
			w.touches(a.Obj.X) // a mover's object is not: its locks are (futures.go)
		}
	}
	acq, rel := false, false
	for _, op := range in.Locks {
		bit := w.lockBit(op.Lock.X)
		if op.Acquire {
			acq = true
			w.th[t].held |= bit
			continue
		}
		rel = true
		if op.Free {
			for i := range w.th {
				w.th[i].held &^= bit
			}
		}
	}
	switch {
	case cls == txNon || acq && rel:
		return txNon
	case acq:
		return txRight
	case rel:
		return txLeft
	}
	return txBoth
}

func lockOp(ops []pyvm.LockOp, v pyvm.Value) bool {
	for _, op := range ops {
		if op.Lock == v {
			return true
		}
	}
	return false
}

// lockBit is the lockset of the lock at heap index x alone (0 past
// maxTxLocks).
func (w *World) lockBit(x int32) lockset {
	i := slices.Index(w.txLocks, x)
	if i < 0 {
		if len(w.txLocks) >= maxTxLocks {
			return 0
		}
		w.txLocks = append(w.txLocks, x)
		i = len(w.txLocks) - 1
	}
	return 1 << i
}

// observe records an access of the simulator's own code by thread t (a
// use's read of its module's global): never a mover, but the locksets
// must count it.
func (w *World) observe(t int, obj pyvm.Value, loc pyvm.Loc, key pyvm.Value, write bool) {
	w.touches(obj.X)
	if w.p.tx != nil {
		w.access(obj.X, loc, key, write, w.th[t].held)
	}
}

// access brings the cells an access touches up to date and reports
// whether it is a mover.
func (w *World) access(obj int32, loc pyvm.Loc, key pyvm.Value, write bool, held lockset) bool {
	mover := true
	if loc != pyvm.LocWhole {
		if loc == pyvm.LocShape {
			key = pyvm.Value{}
		}
		i := w.cellAt(obj, loc, key)
		return w.update(i, write, held)
	}
	w.cellAt(obj, pyvm.LocWhole, pyvm.Value{})
	lo, _ := slices.BinarySearchFunc(w.cells, obj, func(c cell, o int32) int { return cmp.Compare(c.obj, o) })
	for i := lo; i < len(w.cells) && w.cells[i].obj == obj; i++ {
		if !w.update(i, write, held) {
			mover = false
		}
	}
	return mover
}

// cellAt is the index of the cell (obj, loc, key), made from the
// object's whole-record (or untouched) when new.
func (w *World) cellAt(obj int32, loc pyvm.Loc, key pyvm.Value) int {
	c := cell{obj: obj, loc: loc, key: key, ca: everyLock, cw: everyLock, mr: everyLock, mw: everyLock}
	i, found := slices.BinarySearchFunc(w.cells, &c, func(a cell, b *cell) int { return cellCmp(&a, b) })
	if found {
		return i
	}
	if loc != pyvm.LocWhole {
		whole := cell{obj: obj, loc: pyvm.LocWhole}
		if j, ok := slices.BinarySearchFunc(w.cells, &whole, func(a cell, b *cell) int { return cellCmp(&a, b) }); ok {
			c.ca, c.cw, c.mr, c.mw = w.cells[j].ca, w.cells[j].cw, w.cells[j].mr, w.cells[j].mw
		}
	}
	w.ownCells()
	w.cells = slices.Insert(w.cells, i, c)
	return i
}

// ownCells makes w.cells w's own to change.
func (w *World) ownCells() {
	if w.cellsShared {
		w.cells, w.cellsShared = slices.Clone(w.cells), false
	}
}

// update takes one access to cell i, made holding held, and reports
// whether it is a mover; a break it makes is recorded.
func (w *World) update(i int, write bool, held lockset) bool {
	c := &w.cells[i]
	ca, cw := c.ca&held, c.cw
	if write {
		cw &= held
	}
	var mover bool
	switch {
	case w.p.tx.allMovers:
		mover = true
	case write:
		mover = !w.nonMover(c, txWrites) && c.mw&held&ca != 0
	default:
		mover = !w.nonMover(c, txReads) && c.mr&held&cw != 0
	}
	mr, mw := c.mr, c.mw
	if mover && write {
		mw &= held
	} else if mover {
		mr &= held
	}
	// a break is new when this access makes it
	if broken(mr, cw) && !broken(c.mr, c.cw) {
		w.broke(c, txReads)
	}
	if broken(mw, ca) && !broken(c.mw, c.ca) {
		w.broke(c, txWrites)
	}
	if c.ca != ca || c.cw != cw || c.mr != mr || c.mw != mw {
		w.ownCells()
		c = &w.cells[i]
		c.ca, c.cw, c.mr, c.mw = ca, cw, mr, mw
	}
	return mover
}

// broken reports whether the locks every mover held (movers) and the
// locks every access those movers must commute with held (others: the
// writes, for mover reads; every access, for mover writes) have none in
// common.
func broken(movers, others lockset) bool {
	return movers != everyLock && movers&others == 0
}

// appendTx appends what the key must say of the reduction's record: the
// locks each thread holds (threads in order) and every cell of a live
// object, in an order of the key's names, so that equal keys mean equal
// records.
func (w *World) appendTx(b []byte, order []int, name func(pyvm.Value) int64) []byte {
	var names [maxTxLocks]int64
	set := func(b []byte, s lockset) []byte {
		if s == everyLock {
			return binary.AppendVarint(b, -2)
		}
		ns := names[:0]
		for i, x := range w.txLocks {
			if s&(1<<i) != 0 {
				ns = append(ns, name(pyvm.Value{K: pyvm.KindRef, X: x}))
			}
		}
		slices.Sort(ns)
		ns = slices.Compact(ns)
		b = binary.AppendUvarint(b, uint64(len(ns)))
		for _, n := range ns {
			b = binary.AppendVarint(b, n)
		}
		return b
	}
	for _, t := range order {
		b = set(b, w.th[t].held)
	}
	// each cell's record is written after b, then the records are
	// copied back sorted (a record apiece allocated was a tenth of a
	// search's allocations: BenchmarkVerdict/*/transactions)
	var spanArr [32][2]int
	spans := spanArr[:0]
	start := len(b)
	for i := range w.cells {
		c := &w.cells[i]
		o := name(pyvm.Value{K: pyvm.KindRef, X: c.obj})
		if o < 0 {
			continue // garbage: no access can come
		}
		from := len(b)
		b = binary.AppendVarint(b, o)
		b = append(b, byte(c.loc), byte(c.key.K))
		if c.key.K == pyvm.KindRef || c.key.K == pyvm.KindID {
			b = binary.AppendVarint(b, name(c.key))
		} else {
			b = binary.AppendVarint(b, int64(c.key.X))
		}
		for _, s := range [...]lockset{c.ca, c.cw, c.mr, c.mw} {
			b = set(b, s)
		}
		spans = append(spans, [2]int{from, len(b)})
	}
	slices.SortFunc(spans, func(x, y [2]int) int { return bytes.Compare(b[x[0]:x[1]], b[y[0]:y[1]]) })
	out := binary.AppendUvarint(b, uint64(len(spans)))
	for _, sp := range spans {
		out = binary.AppendUvarint(out, uint64(sp[1]-sp[0]))
		out = append(out, out[sp[0]:sp[1]]...)
	}
	// the sorted copy, moved down over the unsorted records (append
	// copies as memmove does)
	return append(out[:start], out[len(b):]...)
}

// touches records that the step touched the object at heap index x,
// when a trial records it (World.touch).
func (w *World) touches(x int32) {
	if w.touch {
		w.touched = append(w.touched, x)
	}
}

// unordered reports whether dict v is keyed as a set ("Registries as
// sets").
func (w *World) unordered(v pyvm.Value) bool {
	tx := w.p.tx
	return tx != nil && !tx.allMovers && w.s.SetupObject(v) && !tx.ordered[v.X] && w.s.IsDict(v)
}

// orderSeen records a break of "Registries as sets" on the dict at heap
// index x.
func (w *World) orderSeen(x int32) {
	tx := w.p.tx
	if tx.ignoreBreaks {
		return
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.anyBreak.Store(true)
	tx.seen[x] = true
}
