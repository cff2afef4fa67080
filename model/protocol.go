package model

import (
	"fmt"

	"swapcheck/sched"
)

// Object names the shared object an Instr touches, relative to the frame
// that runs it (the module is the callee's, the lock is the local "lock").
type Object uint8

const (
	// NoObject: a local step (locals, constants, imports); it runs in the
	// same scheduler step as the shared step before it, since no other
	// thread can observe or affect it.
	NoObject Object = 1 + iota
	// Globals: fn.__globals__ of the callee's module.
	Globals
	// LockRegistry: the entry _globals_locks[gid].
	LockRegistry
	// CountRegistry: the entry _swap_refcount[gid] (global-lock: the count
	// of _swap_state[gid]).
	CountRegistry
	// SavedRegistry: the entry _swap_orig[gid] (global-lock: the saved
	// names of _swap_state[gid]).
	SavedRegistry
	// ModuleLock: the lock object held in the local "lock".
	ModuleLock
	// GlobalLock: the protocol's one global lock (_locks_register_lock or
	// _swap_lock).
	GlobalLock
)

// Instr is one step of a protocol listing: one atomic CPython operation,
// with the Python line and the bytecode(s) it stands for.
type Instr struct {
	// Label names the instruction for jumps and handlers ("" for none).
	Label string
	// Line is the line number in the protocol's Python source, Text the
	// line itself, Bytecode the CPython 3.11 opcode(s) of this step.
	Line     int
	Text     string
	Bytecode string
	// Object and Access are the step's footprint.
	Object Object
	Access sched.Access
	// Ready, when set, says whether the step can run now (lock acquire);
	// a step that is not ready blocks its thread.
	Ready func(c *Ctx) bool
	// Yield marks the context manager's yield: the with-body runs here.
	Yield bool
	// Deletes: the step deletes registry entries (del d[k], d.pop(k)).
	// A step that deletes without saying so panics (Ctx.DelLockEntry,
	// DelCount, DelSaved), so what the listing says is what it does, and
	// Protocol.KeepsLockEntries is read off it.
	Deletes bool
	// Check and CheckFirst say where CPython 3.11 checks its eval breaker
	// around the step, which is where it may hand the GIL to another
	// thread (switchpoint.go; TestSwitchPointsOfListings ties them to
	// testdata/cpython/switchpoints.golden.txt).
	Check      Check
	CheckFirst bool
	// Exec performs the step. It moves on to the next instruction unless
	// it calls Jump, Stay or Raise.
	Exec func(c *Ctx)
}

// Handler is one row of a listing's exception table: an exception raised
// by an instruction in [From, To) continues at Target, with the exception
// pending (re-raised by EndFinally or EndWith). Rows are searched in order:
// list inner handlers first.
type Handler struct {
	From, To, Target string
}

// Protocol is one variant of swapped_cuda_module, as a listing.
type Protocol struct {
	// Name is the variant's name ("naive", "merged", ...).
	Name string
	// Source is the file under testdata/python whose lines Instr.Line cites.
	Source string
	// Summary is one line saying what the variant is.
	Summary string
	Code    []Instr
	// Handlers is the exception table.
	Handlers []Handler
	// The facts below are declared, not read off the listing, and each is
	// checked as the listing runs: a step that contradicts its protocol's
	// declaration panics (ctx.go), so any search of the variant catches a
	// wrong one (variants' TestDeclaredFactsAreChecked flips each).
	//
	// CountGuardsGlobals: the listing writes a module's globals only with
	// the module's lock held, and only where _swap_refcount[gid] read 0
	// under that lock (the swap before the increment, the restore after
	// the decrement); it changes the count only by the increment (the
	// load labelled "incr" and the store after it) and the decrement
	// ("dec" and the store after it), each under that lock. So while the
	// count cannot fall to zero nobody writes the module's globals: POR's
	// futures use it (reduce_futures.go, "Pinned modules").
	CountGuardsGlobals bool
	// StateGuardsGlobals: the listing counts a module's references in
	// one state entry, _swap_state[gid] = (keys, refcount), which it
	// reads and writes only under the global lock: the first entrant
	// stores refcount 0 (the store labelled "first"), each later one
	// refcount + 1 ("enter", reached through "else"), an exit either
	// refcount - 1 or, where refcount read 0, restores the globals and
	// deletes the entry ("del"). So the entry counts the references
	// (refcount + 1 of them while it is there, none when it is not), and
	// the listing writes a module's globals only with the global lock
	// held and only where it holds the one reference there is: the swap
	// after "first", the restore before "del". While some thread that
	// stays put holds a reference, nobody writes the module's globals:
	// POR's futures use it (reduce_futures.go, "Pinned modules").
	StateGuardsGlobals bool
	// StoresDispatchOverReal: the listing's one write of a module's
	// globals stores Dispatch into a name its thread found bound to the
	// real module, and no step binds a name to anything else. So once no
	// global of a module is the real module every such write stores
	// Dispatch over Dispatch and changes nothing: POR's futures use it
	// (reduce_futures.go, "Pinned modules").
	StoresDispatchOverReal bool
	// ZeroCountIsMissing: the count registry is a defaultdict(int) that
	// every line reads through its default (if _swap_refcount[gid] ==
	// 0, += 1) and deletes only once it read the entry, so an entry
	// holding 0 behaves as a missing one to every later step: the end
	// state does not count it as left over (check's finalFailure).
	ZeroCountIsMissing bool
	// ThreadContext: the variant runs with kernel.py patched so that the
	// kernel context is the thread's own (a BlockThread carries its
	// launch's fake; a host thread has none), not the module-level
	// _kernel_context (docs/proposed_fix.md, docs/merged_fix.md). So a
	// launch sets no shared context (nor asserts on it, nor runs inline
	// because another host's launch set it), and a GPU thread's device
	// call passes its own launch's fake and a host's passes None.
	ThreadContext bool
	// Dispatches: the variant stores Dispatch rather than the fake it is
	// passed (it needs ThreadContext: Compile checks), and a use of cuda
	// that reads Dispatch sees what World.dispatch resolves.
	Dispatches bool
	// GlobalLockName is the Python name of GlobalLock ("" when unused).
	GlobalLockName string
	// CountName and SavedName render the count and saved-names entries in
	// traces, with %s for the module ("" for _swap_refcount[%s] and
	// _swap_orig[%s]).
	CountName, SavedName string

	// keepsLockEntries: no instruction deletes a _globals_locks entry
	// (KeepsLockEntries)
	keepsLockEntries bool
	labels           map[string]int
	where            []string // "source:line" of each instruction
	handlers         []handlerPC
	yield            int
	// holds[pc] says that a frame of the swap at pc, out of its
	// with-body, holds a reference to its module: it stored its
	// increment and not yet its decrement (CountGuardsGlobals), or its
	// state entry and not yet its exit's (StateGuardsGlobals); nil
	// without either
	holds    []bool
	compiled bool
}

type handlerPC struct{ from, to, target int }

// Compile resolves labels and checks the listing. Protocol packages call it
// once, at init; an error here is a bug in the listing, so it panics.
func (p *Protocol) Compile() *Protocol {
	p.labels = make(map[string]int)
	p.where, p.handlers = nil, nil // a copy of a compiled protocol compiles afresh
	p.yield = -1
	for i, in := range p.Code {
		if in.Label != "" {
			if _, dup := p.labels[in.Label]; dup {
				panic(fmt.Sprintf("model: protocol %s: label %q defined twice", p.Name, in.Label))
			}
			p.labels[in.Label] = i
		}
		if in.Yield {
			if p.yield >= 0 {
				panic(fmt.Sprintf("model: protocol %s: two yields", p.Name))
			}
			p.yield = i
		}
		if in.Line <= 0 || in.Text == "" || in.Bytecode == "" || in.Object == 0 {
			panic(fmt.Sprintf("model: protocol %s: instruction %d lacks its line, text, bytecode or object", p.Name, i))
		}
		if in.Object != NoObject && in.Access != sched.Read && in.Access != sched.Write {
			panic(fmt.Sprintf("model: protocol %s: shared instruction %d (line %d) lacks its access", p.Name, i, in.Line))
		}
		p.where = append(p.where, fmt.Sprintf("%s:%d", p.Source, in.Line))
		if in.Exec == nil && !in.Yield {
			panic(fmt.Sprintf("model: protocol %s: instruction %d has no Exec", p.Name, i))
		}
	}
	if p.yield < 0 {
		panic(fmt.Sprintf("model: protocol %s: no yield", p.Name))
	}
	if p.Dispatches && !p.ThreadContext {
		panic(fmt.Sprintf("model: protocol %s dispatches without a thread's own kernel context (ThreadContext)", p.Name))
	}
	for _, h := range p.Handlers {
		p.handlers = append(p.handlers, handlerPC{p.label(h.From), p.label(h.To), p.label(h.Target)})
	}
	p.keepsLockEntries = true
	for _, in := range p.Code {
		if in.Object == LockRegistry && in.Deletes {
			p.keepsLockEntries = false
		}
	}
	p.holds = nil
	if p.CountGuardsGlobals {
		p.holds = p.countHolds()
	}
	if p.StateGuardsGlobals {
		if p.CountGuardsGlobals {
			panic(fmt.Sprintf("model: protocol %s says both CountGuardsGlobals and StateGuardsGlobals", p.Name))
		}
		p.holds = p.stateHolds()
	}
	p.compiled = true
	return p
}

// KeepsLockEntries reports whether no instruction deletes a
// _globals_locks entry (read off the listing's Deletes), so that a
// module's lock, once fetched, is the one every later fetch returns
// (where a defaultdict miss keeps a stored entry). POR's futures rely
// on it.
func (p *Protocol) KeepsLockEntries() bool { return p.keepsLockEntries }

func (p *Protocol) label(name string) int {
	i, ok := p.labels[name]
	if !ok {
		panic(fmt.Sprintf("model: protocol %s: unknown label %q", p.Name, name))
	}
	return i
}

// handlerFor returns the target of the innermost handler covering pc, or -1.
func (p *Protocol) handlerFor(pc int) int {
	for _, h := range p.handlers {
		if pc >= h.from && pc < h.to {
			return h.target
		}
	}
	return -1
}

func (p *Protocol) countName() string {
	if p.CountName != "" {
		return p.CountName
	}
	return "_swap_refcount[%s]"
}

func (p *Protocol) savedName() string {
	if p.SavedName != "" {
		return p.SavedName
	}
	return "_swap_orig[%s]"
}

// EntryNames renders module mod's count and saved-names entries as the
// protocol's Python names them.
func (p *Protocol) EntryNames(mod string) (count, saved string) {
	return fmt.Sprintf(p.countName(), mod), fmt.Sprintf(p.savedName(), mod)
}

// countHolds is holds for a listing that says CountGuardsGlobals: a
// frame holds its reference after the store of the count's increment
// (the load labelled "incr", then its store) up to that of its
// decrement ("dec", then its store) included, not run yet.
func (p *Protocol) countHolds() []bool {
	_, inc := p.labels["incr"]
	_, dec := p.labels["dec"]
	if !inc || !dec {
		panic(fmt.Sprintf("model: protocol %s says CountGuardsGlobals, but its listing has no count increment and decrement (labels incr, dec)", p.Name))
	}
	incStore, decStore := p.label("incr")+1, p.label("dec")+1
	for _, i := range []int{incStore - 1, incStore, decStore - 1, decStore} {
		if i >= len(p.Code) || p.Code[i].Object != CountRegistry || p.Code[i].Access != sched.Write {
			panic(fmt.Sprintf("model: protocol %s: instruction %d of the count's increment or decrement is not a write of the count", p.Name, i))
		}
	}
	holds := make([]bool, len(p.Code))
	for pc := range holds {
		holds[pc] = pc > incStore && pc <= decStore
	}
	return holds
}

// stateHolds is holds for a listing that says StateGuardsGlobals: a
// frame holds its reference after the first entrant's store ("first")
// up to the later entrants' branch ("else", where the first entrant
// never goes: its loop ends in the release after "enter"), and after a
// later entrant's store ("enter") up to the entry's deletion ("del")
// included, not run yet. The exit's decrement, between the two, jumps
// past "del" to the release.
func (p *Protocol) stateHolds() []bool {
	for _, l := range []string{"first", "else", "enter", "del"} {
		if _, ok := p.labels[l]; !ok {
			panic(fmt.Sprintf("model: protocol %s says StateGuardsGlobals, but its listing has no label %q", p.Name, l))
		}
	}
	first, els, enter, del := p.label("first"), p.label("else"), p.label("enter"), p.label("del")
	if !(first < els && els < enter && enter < del) {
		panic(fmt.Sprintf("model: protocol %s: the state's stores are not in the order first, else, enter, del", p.Name))
	}
	for _, i := range []int{first, enter, del} {
		if p.Code[i].Object != SavedRegistry || p.Code[i].Access != sched.Write {
			panic(fmt.Sprintf("model: protocol %s: instruction %d (label first, enter or del) is not a write of the state entry", p.Name, i))
		}
	}
	holds := make([]bool, len(p.Code))
	for pc := range holds {
		holds[pc] = pc > first && pc < els || pc > enter && pc <= del
	}
	return holds
}

// GuardsGlobals reports whether the listing writes a module's globals
// only where no other thread holds a reference to it
// (CountGuardsGlobals or StateGuardsGlobals).
func (p *Protocol) GuardsGlobals() bool { return p.CountGuardsGlobals || p.StateGuardsGlobals }
