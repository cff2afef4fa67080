package memory

// DefaultShare is the share of the machine's memory a search may take
// when the caller sets no bound: three quarters, which leaves the rest
// to the system and the programs beside it, where an unbounded search
// of merged with 8 threads grew to 24 GB and was killed by the kernel
// (exit 137, nothing written).
const DefaultShare = 0.75

// Default is DefaultShare of the machine's memory (Total), 0 (no bound)
// where the machine does not say.
func Default() int64 { return int64(float64(Total()) * DefaultShare) }

// Minimum is the smallest bound a search takes: the process holds about
// 30 MiB before its search starts (its code, the runtime, the program),
// so a smaller bound could never be kept, and a search small enough to
// end before its first reading would verify under it anyway.
const Minimum = 48 << 20
