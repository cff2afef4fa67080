package model

import (
	"errors"
	"fmt"
	"slices"
)

// A census: a world as its shared part, its host and a list of GPU
// threads, each one block of slots that names no other thread, for the
// proof for every thread count (check/everyn.go, docs/every-n.md).
//
// Three things in a world depend on the number N of threads per block,
// and a census takes each out, so that what is left of the shared part and
// of each thread means the same for every N:
//
//   - each module's count entry (_swap_refcount[gid], global-lock's
//     refcount): Counts holds the values, Shared has them zeroed (their
//     presence stays);
//   - the lock owners, which name threads: HostHeld and Held say which
//     locks the host and each GPU thread hold;
//   - the lock references, whose pools grow with N (program.go): a census
//     names lock r of module m's pool 256*(m+1)+r-pool, wherever it sits
//     (the module's _globals_locks entry, a frame's lock);
//   - the host's place in its launch's code, which starts the block's
//     threads one statement each (launchStmts) and then polls: HostStarting
//     while it starts them (it has then started N less the threads not
//     started, which the census checks), else the statement's index less N.
//
// FromCensus puts a census back together for a program of len(Threads)
// threads; of a census of a world, it gives the world back.

// HostStarting stands for the host's statement index in its launch's code
// while the host starts the block's threads.
const HostStarting = -1

// Census is a world taken apart (see above).
type Census struct {
	Shared   []int16
	Counts   []int32 // per module: the count entry's value, 0 when missing
	Host     []int16
	HostHeld []int16   // the locks the host holds, ascending
	Threads  [][]int16 // the GPU threads' blocks, dead slots zeroed
	Held     [][]int16 // per GPU thread, the locks it holds, ascending
}

// censusLock is lock reference r as a census names it, and programLock the
// reverse; both fail for a reference they cannot name.
func (p *Program) censusLock(r int16) (int16, error) {
	if r <= 1 {
		return r, nil // none, or the protocol's global lock
	}
	for m, pool := range p.lockPool {
		if k := int(r) - pool; k >= 0 && k < p.lockPoolSize[m] {
			if k >= 256 || m >= 120 {
				return 0, fmt.Errorf("lock#%d: a census names at most 256 locks of 120 modules", r)
			}
			return int16(256*(m+1) + k), nil
		}
	}
	return 0, fmt.Errorf("lock#%d is in no pool", r)
}

func (p *Program) programLock(r int16) (int16, error) {
	if r <= 1 {
		return r, nil
	}
	m, k := int(r)/256-1, int(r)%256
	if m < 0 || m >= len(p.lockPool) || k >= p.lockPoolSize[m] {
		return 0, fmt.Errorf("a census's lock %d is in no pool of this program", r)
	}
	return int16(p.lockPool[m] + k), nil
}

// mapLocks rewrites the lock references of a census's shared part and of
// a block (the host's or a thread's) with f.
func (p *Program) mapLocks(shared []int16, blocks [][]int16, f func(int16) (int16, error)) error {
	var err error
	do := func(v *int16) {
		if err == nil {
			*v, err = f(*v)
		}
	}
	if shared != nil {
		for m := range p.Scenario.Modules {
			do(&shared[p.lay.lockReg+m])
		}
	}
	for _, b := range blocks {
		if b[tStatus] == finished {
			continue
		}
		for fr := tFrames; fr < tFrames+int(b[tDepth])*frameSize; fr += frameSize {
			do(&b[fr+fLock])
		}
	}
	return err
}

// CensusError says why p's worlds cannot be taken as a census, nil when
// they can: one host, one launch of one block, no faults, no shared
// memory or atomics, no syncthreads, no branch on the thread index.
func (p *Program) CensusError() error {
	sc := p.Scenario
	switch {
	case p.hosts != 1:
		return errors.New("more than one host")
	case sc.Launches != 1:
		return errors.New("more than one launch")
	case sc.Blocks != 1:
		return errors.New("more than one block")
	case p.signal >= 0 || p.raiser >= 0:
		return errors.New("faults")
	case sc.HasMemory() || p.lay.memSlots > 0:
		return errors.New("shared arrays or atomics")
	case p.lay.threads != p.lay.lockOwner+1+p.maxLocks:
		return errors.New("state past the lock owners")
	case p.lay.lockOwner+1 != p.lay.nextLock+len(sc.Modules):
		return errors.New("state between the registries and the lock owners")
	}
	gpu := p.blockThreads[0]
	for _, t := range gpu {
		if p.threadCode[t] != p.threadCode[gpu[0]] {
			return errors.New("a branch on the thread index")
		}
	}
	for _, cd := range p.codes {
		for _, st := range cd.stmts {
			if st.kind == sSync {
				return errors.New("syncthreads")
			}
		}
	}
	return nil
}

// Census takes w apart. It fails when w is not a world of a program
// CensusError accepts, or when the host's place in its launch does not
// match the threads not yet started.
func (w *World) Census() (*Census, error) {
	p, l := w.p, &w.p.lay
	if err := p.CensusError(); err != nil {
		return nil, err
	}
	w.sync()
	gpu := p.blockThreads[0]
	// the shared slots and every block in one allocation, the lists in
	// another (the proof for every N takes a census of every world it
	// puts together: BenchmarkEveryN)
	data := make([]int16, 0, l.lockOwner+1+(len(gpu)+1)*l.threadSize)
	lists := make([][]int16, 3*len(gpu)+1)
	c := &Census{Counts: make([]int32, len(p.Scenario.Modules))}
	data = append(data, w.s[:l.lockOwner+1]...)
	c.Shared = data[:len(data):len(data)]
	for m := range c.Counts {
		if c.Shared[l.countP+m] != 0 {
			c.Counts[m] = int32(c.Shared[l.count+m])
		}
		c.Shared[l.count+m] = 0
	}
	c.Held = lists[:len(gpu):len(gpu)]
	for r := 1; r <= p.maxLocks; r++ {
		o := int(w.s[l.lockOwner+r])
		if o == 0 {
			continue
		}
		cr, err := p.censusLock(int16(r))
		if err != nil {
			return nil, err
		}
		if o-1 == 0 {
			c.HostHeld = append(c.HostHeld, cr)
			continue
		}
		i := slices.Index(gpu, o-1) // a few locks: no index of the threads
		if i < 0 {
			return nil, fmt.Errorf("lock#%d is held by thread %d, of no block", r, o-1)
		}
		c.Held[i] = append(c.Held[i], cr)
	}
	waiting := 0 // threads not started
	c.Threads = lists[len(gpu) : len(gpu) : 2*len(gpu)]
	for _, t := range gpu {
		var b []int16
		data, b = w.deadZeroedInto(data, t)
		if NotStarted(b) {
			waiting++
		}
		c.Threads = append(c.Threads, b)
	}
	_, c.Host = w.deadZeroedInto(data, 0)
	if err := p.encodeHost(c.Host, len(gpu), waiting); err != nil {
		return nil, err
	}
	if err := p.mapLocks(c.Shared, append(append(lists[2*len(gpu):2*len(gpu)], c.Host), c.Threads...), p.censusLock); err != nil {
		return nil, err
	}
	slices.Sort(c.HostHeld)
	for _, h := range c.Held {
		slices.Sort(h)
	}
	return c, nil
}

// deadZeroedInto appends to buf a copy of thread t's block with its dead
// slots (see AppendCanonicalKey) zeroed, and returns buf and the copy
// (capped, so that appending to one never writes the next).
func (w *World) deadZeroedInto(buf []int16, t int) ([]int16, []int16) {
	base := w.thread(t)
	i := len(buf)
	buf = append(buf, w.s[base:base+w.p.lay.threadSize]...)
	b := buf[i:len(buf):len(buf)]
	if b[tStatus] == finished {
		died := b[tDied]
		clear(b)
		b[tStatus], b[tDied] = finished, died
		return buf, b
	}
	depth := max(int(b[tDepth]), int(b[tDeferred]))
	clear(b[tFrames+depth*frameSize:])
	for f := tFrames; f < tFrames+depth*frameSize; f += frameSize {
		if b[f+fTmpSet] == 0 {
			b[f+fTmp] = 0
		}
	}
	return buf, b
}

// launchFrame is the frame of host block b that runs a launch's code, -1
// when there is none.
func (p *Program) launchFrame(b []int16) int {
	for f := tFrames; f < tFrames+int(b[tDepth])*frameSize; f += frameSize {
		cd := &p.codes[b[f+fCode]]
		if n := len(cd.stmts); n > 0 && cd.stmts[0].kind == sStart && cd.stmts[n-1].kind == sPoll {
			return f
		}
	}
	return -1
}

// encodeHost rewrites the host block's place in its launch as a census
// holds it (see HostStarting).
func (p *Program) encodeHost(b []int16, threads, waiting int) error {
	f := p.launchFrame(b)
	if f < 0 {
		return nil
	}
	i := int(b[f+fBody])
	if i < threads {
		if i != threads-waiting {
			return fmt.Errorf("the host is at its launch's statement %d with %d of %d threads not started", i, waiting, threads)
		}
		b[f+fBody] = HostStarting
		return nil
	}
	b[f+fBody] = int16(i - threads)
	return nil
}

// Tmps lists the live tmps of a census thread block, as slot index in the
// block and the module whose count the frame's protocol uses.
func (p *Program) Tmps(b []int16) (slots, modules []int) {
	if b[tStatus] == finished {
		return nil, nil
	}
	for f := tFrames; f < tFrames+int(b[tDepth])*frameSize; f += frameSize {
		if b[f+fTmpSet] != 0 {
			slots = append(slots, f+fTmp)
			modules = append(modules, p.codes[b[f+fCode]].module)
		}
	}
	return slots, modules
}

// Outside reports whether a census thread block is outside every
// swapped_cuda_module: finished or not started, or with no frame running
// the protocol.
func (p *Program) Outside(b []int16) bool {
	if b[tStatus] != alive {
		return true
	}
	for f := tFrames; f < tFrames+int(b[tDepth])*frameSize; f += frameSize {
		if b[f+fPC] >= 0 {
			return false
		}
	}
	return true
}

// NotStarted reports whether a census thread block is a thread not yet
// started.
func NotStarted(b []int16) bool { return b[tStatus] == notStarted }

// FromCensus puts c together as a world of p, which must have
// len(c.Threads) GPU threads, those not started last.
func (p *Program) FromCensus(c *Census) (*World, error) {
	l := &p.lay
	if err := p.CensusError(); err != nil {
		return nil, err
	}
	gpu := p.blockThreads[0]
	if len(c.Threads) != len(gpu) {
		return nil, fmt.Errorf("a census of %d threads for a program of %d", len(c.Threads), len(gpu))
	}
	if len(c.Shared) != l.lockOwner+1 || len(c.Host) != l.threadSize {
		return nil, errors.New("a census of another program")
	}
	s := make([]slot, l.size)
	copy(s, c.Shared)
	for m, v := range c.Counts {
		if s[l.countP+m] != 0 {
			s[l.count+m] = slot(v)
		} else if v != 0 {
			return nil, fmt.Errorf("module %d's count is missing but %d", m, v)
		}
	}
	hold := func(r int16, t int) error {
		pr, err := p.programLock(r)
		if err != nil {
			return err
		}
		if s[l.lockOwner+int(pr)] != 0 {
			return fmt.Errorf("lock#%d held twice", pr)
		}
		s[l.lockOwner+int(pr)] = slot(t + 1)
		return nil
	}
	for _, r := range c.HostHeld {
		if err := hold(r, 0); err != nil {
			return nil, err
		}
	}
	waiting, seenStarted := 0, false
	for i, b := range c.Threads {
		if len(b) != l.threadSize {
			return nil, errors.New("a census of another program")
		}
		if NotStarted(b) {
			waiting++
		} else if waiting > 0 {
			seenStarted = true
		}
		copy(s[l.threads+gpu[i]*l.threadSize:], b)
		for _, r := range c.Held[i] {
			if err := hold(r, gpu[i]); err != nil {
				return nil, err
			}
		}
	}
	if seenStarted {
		return nil, errors.New("a thread started after one not started")
	}
	host := s[l.threads : l.threads+l.threadSize]
	copy(host, c.Host)
	if f := p.launchFrame(host); f >= 0 {
		if host[f+fBody] == HostStarting {
			if waiting == 0 {
				return nil, errors.New("the host starts threads but none is left")
			}
			host[f+fBody] = slot(len(gpu) - waiting)
		} else {
			host[f+fBody] += slot(len(gpu))
		}
	}
	var blocks [][]int16
	for t := range p.NumThreads() {
		blocks = append(blocks, s[l.threads+t*l.threadSize:][:l.threadSize])
	}
	if err := p.mapLocks(s[:l.lockOwner+1], blocks, p.programLock); err != nil {
		return nil, err
	}
	return &World{p: p, s: s}, nil
}

// BlockThreads is the threads of block b (of all launches, in launch
// order), by their number in the world.
func (p *Program) BlockThreads(b int) []int { return p.blockThreads[b] }
