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

// CorpusEntry is one known counterexample.
type CorpusEntry struct {
	Path     string
	Schedule *Schedule
}

// maxCorpusFile bounds what ReadCorpus reads of one file, as -replay
// does.
const maxCorpusFile = 1 << 28

// ReadCorpus reads the *.json files of dir (not its subdirectories). A
// file that is not a trace.json of this format is left out and named in
// Unread; a directory that cannot be read is an error.
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
		s, err := readCorpusFile(path)
		if err != nil {
			c.Unread = append(c.Unread, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		c.Entries = append(c.Entries, CorpusEntry{Path: path, Schedule: s})
	}
	return c, nil
}

func readCorpusFile(path string) (*Schedule, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a file")
	}
	if info.Size() > maxCorpusFile {
		return nil, fmt.Errorf("longer than %d bytes", maxCorpusFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := ReadTrace(data)
	if err != nil {
		return nil, err
	}
	return t.Replayable()
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
	var same, other []CorpusEntry
	for _, e := range c.Entries {
		s := e.Schedule
		if s.Protocol.Name != cfg.Protocol.Name || s.Atomicity != cfg.Atomicity {
			continue
		}
		run.Applied++
		if s.Scenario.String() == text {
			same = append(same, e)
		} else {
			other = append(other, e)
		}
	}
	for _, e := range append(same, other...) {
		sys := NewSystem(prog)
		sys.RecordHistory()
		res, err := sched.Replay(sys, e.Schedule.Steps, sched.Limits{MaxDepth: cfg.MaxDepth})
		if err != nil {
			continue
		}
		run.Replayed++
		if res.Verdict != sched.Violation {
			continue
		}
		run.Hit = e.Path
		rep := &Report{Config: cfg, Program: prog, Result: res, LocksLeft: sys.LocksLeft(), Corpus: e.Path,
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
