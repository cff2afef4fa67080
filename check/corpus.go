package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"swapcheck/model"
	"swapcheck/sched"
)

// A Corpus is a directory of known counterexamples, the trace.json files
// (*.json) that -out writes and the golden traces are, replayed before
// any new search (Config.Corpus), as rapid replays its fail files: a
// counterexample once found is found again at once, whatever the
// strategy, the seed or the budget.
//
// An entry applies to a search of the same protocol and atomicity; its
// schedule is replayed on the search's own scenario, as -replay replays
// a file: every step must be a step of a runnable thread, and the
// execution must end where the schedule ends. Entries of the same
// scenario (the same canonical text) come first, then the others, each
// group in file-name order, so that the entry that answers is the same
// on every run. The first whose replay ends in a violation answers: that
// violation is one of this scenario's executions, checked as a search
// checks it, so it is a counterexample of its own. An entry that does
// not fit the scenario, or whose replay ends without a violation, answers
// nothing, and the search runs as if there were no corpus; a corpus can
// only turn a search into a violation that the scenario has, never a
// verdict into another otherwise.
type Corpus struct {
	Dir     string
	Entries []CorpusEntry
	// Unread says, one line a file, which files of Dir were not read and
	// why (another format, not a trace).
	Unread []string
}

// CorpusEntry is one known counterexample: its file, the protocol and
// atomicity its head names, and its schedule, read whole only when a
// search of that protocol and atomicity needs it (nil until then; a
// caller may set it, and it is then what the entry holds).
type CorpusEntry struct {
	Path                string
	Protocol, Atomicity string
	Schedule            *Schedule
	data                []byte
}

// schedule is the entry's schedule, read whole from its file if need be.
func (e CorpusEntry) schedule() (*Schedule, error) {
	if e.Schedule != nil {
		return e.Schedule, nil
	}
	t, err := ReadTrace(e.data)
	if err != nil {
		return nil, err
	}
	return t.Replayable()
}

// appliesTo reports whether the entry is of cfg's protocol and atomicity.
func (e CorpusEntry) appliesTo(cfg Config) bool {
	if s := e.Schedule; s != nil {
		return s.Protocol.Name == cfg.Protocol.Name && s.Atomicity == cfg.Atomicity
	}
	return e.Protocol == cfg.Protocol.Name && e.Atomicity == cfg.Atomicity.String()
}

// maxCorpusFile bounds what ReadCorpus reads of one file, as -replay
// does.
const maxCorpusFile = 1 << 28

// ReadCorpus reads the *.json files of dir (not its subdirectories), and
// of each its head (see CorpusEntry). A file whose head is not a
// trace.json's of this format is left out and named in Unread; one whose
// rest does not read is named when a search needs it
// (CorpusRun.Unreadable). A directory that cannot be read is an error.
func ReadCorpus(dir string) (*Corpus, error) {
	names, err := fs.Glob(os.DirFS(dir), "*.json")
	if err == nil {
		_, err = os.ReadDir(dir) // Glob is silent about a missing dir
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	slices.Sort(names)
	c := &Corpus{Dir: dir}
	for _, name := range names {
		path := filepath.Join(dir, name)
		e, err := readCorpusFile(path)
		if err != nil {
			c.Unread = append(c.Unread, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

func readCorpusFile(path string) (CorpusEntry, error) {
	e := CorpusEntry{Path: path}
	info, err := os.Stat(path)
	if err != nil {
		return e, err
	}
	if !info.Mode().IsRegular() {
		return e, fmt.Errorf("not a file")
	}
	if info.Size() > maxCorpusFile {
		return e, fmt.Errorf("longer than %d bytes", maxCorpusFile)
	}
	if e.data, err = os.ReadFile(path); err != nil {
		return e, err
	}
	h, err := readTraceHead(e.data)
	e.Protocol, e.Atomicity = h.Protocol, h.Atomicity
	return e, err
}

// CorpusRun is what replaying a corpus before a search did.
type CorpusRun struct {
	Dir string
	// Applied counts the entries of the search's protocol and atomicity,
	// Replayed those of them replayed whose schedule fit the scenario (up
	// to the hit); Unread the files left out.
	Entries, Applied, Replayed, Unread int
	// Hit is the entry whose replay ended in a violation ("" for none).
	Hit string
	// Unreadable names, one line a file, the entries of this protocol
	// and atomicity whose file did not read whole, and why (counted in
	// Unread).
	Unreadable []string
}

// String says what the corpus did, for a person.
func (c *CorpusRun) String() string {
	s := fmt.Sprintf("corpus %s: %s, %d of this protocol and atomicity", c.Dir, entries(c.Entries), c.Applied)
	if c.Unread > 0 {
		s += fmt.Sprintf(" (%s not read)", Count(c.Unread, "file"))
	}
	if c.Hit != "" {
		return s + "; " + c.Hit + " replays to a violation on this scenario, so no search ran"
	}
	return s + fmt.Sprintf("; %d fit this scenario, none ends in a violation, so the search ran", c.Replayed)
}

// replayCorpus replays c's entries that apply to cfg on prog, in the
// order Corpus describes, and returns the report of the first that ends
// in a violation (nil when none does).
func replayCorpus(c *Corpus, cfg Config, prog *model.Program, run *CorpusRun) *Report {
	start := time.Now()
	text := cfg.Scenario.String()
	type entry struct {
		path string
		s    *Schedule
	}
	var same, other []entry
	for _, e := range c.Entries {
		if !e.appliesTo(cfg) {
			continue
		}
		s, err := e.schedule()
		if err == nil && (s.Protocol.Name != cfg.Protocol.Name || s.Atomicity != cfg.Atomicity) {
			// a head whose keys the whole read takes otherwise (JSON
			// keys match case-insensitively, the last of twins wins)
			err = fmt.Errorf("its head names %s and %s, its whole %s and %s", e.Protocol, e.Atomicity, s.Protocol.Name, s.Atomicity)
		}
		if err != nil {
			run.Unread++
			run.Unreadable = append(run.Unreadable, fmt.Sprintf("%s: %v", e.Path, err))
			continue
		}
		run.Applied++
		if s.Scenario.String() == text {
			same = append(same, entry{e.Path, s})
		} else {
			other = append(other, entry{e.Path, s})
		}
	}
	for _, e := range append(same, other...) {
		sys := NewScopedSystem(prog, cfg.Scope)
		sys.RecordHistory()
		res, err := sched.Replay(sys, e.s.Steps, sched.Limits{MaxDepth: cfg.MaxDepth})
		if err != nil {
			continue
		}
		run.Replayed++
		if res.Verdict != sched.Violation {
			continue
		}
		run.Hit = e.path
		rep := &Report{Config: cfg, Program: prog, Result: res, LocksLeft: sys.LocksLeft(), Corpus: e.path,
			Elapsed: time.Since(start)}
		return rep
	}
	return nil
}

// entries is "1 entry", "2 entries".
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
