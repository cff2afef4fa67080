package model

// EventKind says what a step did, for the invariants.
type EventKind uint8

const (
	// EvStep: a step with nothing the invariants look at.
	EvStep EventKind = 1 + iota
	// EvUse: kernel or device code loaded a cuda global (Saw) where it
	// should have found its launch's fake (Want).
	EvUse
)

// Event describes one step: who ran, which Python line and bytecode it
// stands for, and what it did.
type Event struct {
	Thread int
	Kind   EventKind
	// Where is "naive.py:15" for a protocol line, "kernel" or a device
	// function's name for kernel code, "kernel.py" for the simulator's own
	// code run by the host or by a GPU thread.
	Where    string
	Line     int
	Text     string
	Bytecode string
	// Use: the module and global read, what was seen and what was due.
	Module    int
	Name      string
	Saw, Want Value
	// Raised is the exception this step raised or passed on (0 for none);
	// Machinery is true when the swap protocol's own code raised it (not
	// when a finally or a with's exit re-raises the body's exception).
	Raised    Exc
	Machinery bool
	// Effects describe what the step changed or read, when World.Trace is
	// on, for example "cuda = fake#1".
	Effects []string
}
