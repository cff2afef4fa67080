package source

// BreakKey makes p's states key without the interpreter's state, a
// reduction that merges states with different futures.
func BreakKey(p *Program) { p.breakKey = true }
