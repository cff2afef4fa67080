package check

// Share returns a System over the same world state (not a copy), with its
// own step scratch: a driver that runs the threads of one launch on
// goroutines (package stress) gives each goroutine its own handle, and makes
// every step atomic with respect to the steps its footprint conflicts with.
// Step, Status and Footprint then check the same invariants as a search
// does. Do not record a history on a shared System.
func (s *System) Share() *System {
	return &System{w: s.w.Share(), locksLeft: s.locksLeft, scope: s.scope, passed: s.passed, faulted: s.faulted}
}
