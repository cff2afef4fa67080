package source

// BreakKey makes p's states key without the interpreter's state, a
// reduction that merges states with different futures.
func BreakKey(p *Program) { p.breakKey = true }

// ReducedIgnoringBreaks is p.Reduced() with its breaks never recorded: a
// reduction that trusts every mover it took.
func ReducedIgnoringBreaks(p *Program) *Program {
	r, why := p.Reduced()
	if why != "" {
		panic(why)
	}
	r.tx.ignoreBreaks = true
	return r
}

// ReducedAllMovers is p.Reduced() with every access a mover and its
// breaks never recorded: a reduction that joins a thread's code from
// one statement of the simulator's to the next.
func ReducedAllMovers(p *Program) *Program {
	r := ReducedIgnoringBreaks(p)
	r.tx.allMovers = true
	return r
}

// NoPOR makes p's reduced searches take every transaction of every
// thread at each state (no futures: futures.go).
func NoPOR(p *Program) { p.noPOR = true }

// FuturesNextOnly breaks p's futures: a thread's future is its next step
// alone, a reduction that loses what a later step of it would meet.
func FuturesNextOnly(p *Program) { p.nextOnly = true }
