package memory

import (
	"fmt"
	"sync"
	"time"
)

// Bound is a limit on the memory this process holds, for one search at a
// time. Its Over and Afford may be called from any goroutine; once
// either says the limit is reached, Over says so for good (a search's
// Limits.Stop and Limits.Cancel must stay true once true).
type Bound struct {
	limit    int64
	resident func() int64 // Resident, or a test's

	mu     sync.Mutex
	over   string // why the limit was reached, "" while it is not
	last   time.Time
	held   int64 // at last
	peak   int64
	readAt time.Duration
}

// readEvery is how long Over trusts its last reading: reading /proc
// takes some microseconds, and a search asks every few thousand steps
// (on each worker), well under a millisecond apart. In 5 ms a search
// adds some megabytes at most: its visited set grows in tables, which
// Afford measures before they are made.
const readEvery = 5 * time.Millisecond

// New is a bound of limit bytes (0: none, and Over never says yes).
func New(limit int64) *Bound { return &Bound{limit: limit, resident: Resident, readAt: readEvery} }

// NewForTest is a bound of limit bytes that reads what the process
// holds from resident, every time it is asked.
func NewForTest(limit int64, resident func() int64) *Bound {
	return &Bound{limit: limit, resident: resident}
}

// Limit is the bound in bytes (0: none, as for a nil Bound).
func (b *Bound) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Over reports whether the process holds more than the limit, or did
// once.
func (b *Bound) Over() bool {
	if b == nil || b.limit <= 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over == "" {
		if held := b.read(); held > b.limit {
			b.over = fmt.Sprintf("-max-memory %s reached: the process held %s", Format(b.limit), Format(held))
		}
	}
	return b.over != ""
}

// Afford reports whether the process may take bytes more at once (a
// visited set's next table) and stay within the limit; if not, the limit
// counts as reached (Over says so from then on).
func (b *Bound) Afford(bytes int64) bool {
	if b == nil || b.limit <= 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over != "" {
		return false
	}
	b.last = time.Time{} // a fresh reading: the table is large
	if held := b.read(); held+bytes > b.limit {
		b.over = fmt.Sprintf("-max-memory %s reached: the process held %s, and the visited set's next table takes %s more", Format(b.limit), Format(held), Format(bytes))
		return false
	}
	return true
}

// read is what the process holds, read at most every readAt; b.mu is
// held.
func (b *Bound) read() int64 {
	if b.readAt > 0 {
		if now := time.Now(); now.Sub(b.last) >= b.readAt {
			b.last, b.held = now, b.resident()
		}
	} else {
		b.held = b.resident()
	}
	b.peak = max(b.peak, b.held)
	return b.held
}

// Reason says why the limit was reached, "" if it was not.
func (b *Bound) Reason() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.over
}

// Advice is what a search that ran out of memory can do instead, for the
// report that it stopped.
const Advice = "-strategy states stores up to n! times fewer states, and -shard i/n splits the search into processes that can run on other machines, see docs/sharding.md"
