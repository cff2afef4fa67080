package stress

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
	"swapcheck/variants"
)

// Comparison: for each buggy variant, the time to the first
// counterexample by every strategy check knows (check.Strategies, as it is
// when Compare runs) and by stress, on the same scenarios.

// Case is one buggy variant on one scenario.
type Case struct {
	Protocol  *model.Protocol
	Atomicity model.Atomicity
	// Label names the scenario in the table ("-threads 2", a file name).
	Label    string
	Scenario *scenario.Scenario
}

// CompareConfig is what Compare measures, and how long it may take.
type CompareConfig struct {
	Cases []Case
	// Strategies are the check strategies to time (nil: check.Strategies).
	Strategies []string
	// Search is the template of every search: its strategy parameters
	// (the command's flags). Compare sets Protocol, Scenario, Atomicity,
	// Strategy, Seed, Runs (unbounded: Cap stops it) and Timeout.
	Search check.Config
	// Gosched are the stress settings to time, one column each.
	Gosched []float64
	// Trials per cell, with seeds Seed, Seed+1, ...; a cell whose first
	// trial finds nothing within Cap stops there.
	Trials int
	Seed   uint64
	Cap    time.Duration
	// Stop, when set, is polled between trials and by each search and
	// stress run: once it is true, the trial under way is dropped and
	// Compare returns the rows so far (the cells it did not run have no
	// trials).
	Stop func() bool
	// Progress, when set, is called after each cell with how many cells
	// are done and how many there are in all.
	Progress func(done, total int, c Case, cell Cell)
}

// stopped says whether Stop is set and true.
func (cfg *CompareConfig) stopped() bool { return cfg.Stop != nil && cfg.Stop() }

// Cell is one method's time to the first counterexample of one case.
type Cell struct {
	Method        string
	Found, Trials int
	// Median (of the trials that found one; a trial that found nothing
	// counts as longer than any), Min and Max.
	Median, Min, Max time.Duration
	// Work is the median steps (a search) or device calls (stress) it
	// took.
	Work int64
	Err  string
}

// Row is one case's cells, in the table's column order.
type Row struct {
	Case  Case
	Cells []Cell
}

// abortedLaunch is testdata/scenarios/aborted-launch.txt (a test keeps
// them equal): merged's failure needs an aborted launch.
const abortedLaunch = `threads 2
launches 2
module kernels cuda
module dev1 cuda
device f in dev1: use cuda.local
kernel: call f; raise
`

// DefaultCases are the variants registered as buggy on two and on 64
// threads, each in every atomicity mode, and merged on the
// aborted-launch scenario in every mode.
func DefaultCases() []Case {
	var cases []Case
	for _, v := range variants.All() {
		if v.Expected != variants.Buggy {
			continue
		}
		p := v.Protocol
		for _, threads := range []int{2, 64} {
			sh := scenario.DefaultShape
			sh.Threads = threads
			sc, err := sh.Build()
			if err != nil {
				panic(fmt.Sprintf("stress: the comparison's scenario: %v", err))
			}
			for _, a := range model.Atomicities() {
				cases = append(cases, Case{Protocol: p, Atomicity: a, Label: fmt.Sprintf("-threads %d", threads), Scenario: sc})
			}
		}
	}
	sc, err := scenario.Parse(strings.NewReader(abortedLaunch))
	if err != nil {
		panic(fmt.Sprintf("stress: the aborted-launch scenario: %v", err))
	}
	merged, err := check.Lookup("merged")
	if err != nil {
		panic(fmt.Sprintf("stress: merged is gone: %v", err))
	}
	for _, a := range model.Atomicities() {
		cases = append(cases, Case{Protocol: merged, Atomicity: a, Label: "aborted-launch.txt", Scenario: sc})
	}
	return cases
}

// Compare times every method on every case. Walks (random, pct) get
// seeds as stress does. When Stop ends it early, the rows are those of the
// cases it began, the last one with cells of no trials where it did not get
// to them.
func Compare(cfg CompareConfig) ([]Row, error) {
	if cfg.Strategies == nil {
		cfg.Strategies = slices.Clone(check.Strategies)
	}
	if cfg.Trials < 1 || cfg.Cap <= 0 {
		return nil, fmt.Errorf("a comparison needs at least one trial and a cap, got %d and %s", cfg.Trials, cfg.Cap)
	}
	type method struct {
		name string
		once func(c Case, seed uint64) (bool, time.Duration, int64, error)
	}
	var methods []method
	for _, s := range cfg.Strategies {
		methods = append(methods, method{strategyMethod(s), func(c Case, seed uint64) (bool, time.Duration, int64, error) {
			sc := cfg.Search
			sc.Protocol, sc.Scenario, sc.Atomicity, sc.Strategy = c.Protocol, c.Scenario, c.Atomicity, s
			sc.Seed, sc.Runs, sc.Timeout = seed, 1<<40, cfg.Cap
			sc.Stop, sc.StopReason = cfg.Stop, "interrupted"
			rep, err := check.Explore(sc)
			if err != nil {
				return false, 0, 0, err
			}
			return rep.Result.Verdict == sched.Violation, rep.Elapsed, rep.Result.Stats.Steps, nil
		}})
	}
	for _, g := range cfg.Gosched {
		methods = append(methods, method{stressMethod(g), func(c Case, seed uint64) (bool, time.Duration, int64, error) {
			res, err := Run(Config{Protocol: c.Protocol, Scenario: c.Scenario, Atomicity: c.Atomicity,
				Duration: cfg.Cap, Seed: seed, Gosched: g, Stop: cfg.Stop, StopReason: "interrupted"})
			if err != nil {
				return false, 0, 0, err
			}
			if v := res.Violation; v != nil {
				return true, v.After, v.Calls, nil
			}
			return false, res.Elapsed, res.Calls, nil
		}})
	}
	var rows []Row
	done, total := 0, len(cfg.Cases)*len(methods)
	for _, c := range cfg.Cases {
		if cfg.stopped() {
			break
		}
		row := Row{Case: c}
		for _, m := range methods {
			cell := Cell{Method: m.name}
			if !cfg.stopped() {
				cell = cfg.trials(m.name, func(seed uint64) (bool, time.Duration, int64, error) { return m.once(c, seed) })
				done++
				if cfg.Progress != nil && !cfg.stopped() {
					cfg.Progress(done, total, c, cell)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func strategyMethod(s string) string { return s }

func stressMethod(g float64) string { return fmt.Sprintf("stress -gosched %g", g) }

// trials runs one cell: Trials runs, or only one when the first finds
// nothing within the cap (an exhaustive search would miss again).
func (cfg *CompareConfig) trials(method string, once func(seed uint64) (bool, time.Duration, int64, error)) Cell {
	cell := Cell{Method: method}
	type trial struct {
		found bool
		d     time.Duration
		work  int64
	}
	var ts []trial
	for i := range cfg.Trials {
		if cfg.Stop != nil && cfg.Stop() {
			break
		}
		found, d, work, err := once(cfg.Seed + uint64(i))
		if cfg.stopped() {
			break // cut short: not a measurement
		}
		if err != nil {
			cell.Err = err.Error()
			return cell
		}
		ts = append(ts, trial{found, d, work})
		if !found && i == 0 {
			break // deterministic, or hopeless within the cap
		}
	}
	cell.Trials = len(ts)
	if len(ts) == 0 {
		return cell
	}
	slices.SortFunc(ts, func(a, b trial) int {
		switch {
		case a.found != b.found && a.found:
			return -1
		case a.found != b.found:
			return 1
		}
		return cmp.Compare(a.d, b.d)
	})
	for _, t := range ts {
		if t.found {
			cell.Found++
		}
	}
	mid := ts[(len(ts)-1)/2]
	cell.Median, cell.Work = mid.d, mid.work
	cell.Min, cell.Max = ts[0].d, ts[len(ts)-1].d
	if !mid.found {
		cell.Median = 0
	}
	return cell
}

// WriteComparison renders the rows as a Markdown table: one column per
// method, each cell the median time to the first counterexample (with
// its spread, and the steps or calls it took), and the last column how many
// times slower the first stress setting was than the fastest search.
func WriteComparison(out io.Writer, rows []Row, cfg CompareConfig) error {
	if len(rows) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("| variant | atomicity | scenario |")
	for _, c := range rows[0].Cells {
		fmt.Fprintf(&b, " %s |", c.Method)
	}
	first := "stress"
	if len(cfg.Gosched) > 0 {
		first = stressMethod(cfg.Gosched[0])
	}
	fmt.Fprintf(&b, " %s ÷ fastest search |\n|---|---|---|", first)
	for range rows[0].Cells {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` |", r.Case.Protocol.Name, r.Case.Atomicity, r.Case.Label)
		searches := len(r.Cells) - len(cfg.Gosched)
		var fastest time.Duration
		for i, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", c.Render(cfg.Cap))
			if i < searches && c.Median > 0 && (fastest == 0 || c.Median < fastest) {
				fastest = c.Median
			}
		}
		switch {
		case fastest == 0 || searches == len(r.Cells) || r.Cells[searches].Trials == 0:
			b.WriteString(" – |\n")
		case r.Cells[searches].Median == 0: // stress found nothing within the cap
			fmt.Fprintf(&b, " > ×%.3g |\n", float64(cfg.Cap)/float64(fastest))
		default:
			fmt.Fprintf(&b, " ×%.3g |\n", float64(r.Cells[searches].Median)/float64(fastest))
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// Render is the cell as the table shows it; limit is the trials' cap.
func (c Cell) Render(limit time.Duration) string {
	switch {
	case c.Err != "":
		return "error: " + strings.ReplaceAll(c.Err, "|", "/")
	case c.Trials == 0:
		return "–"
	case c.Median == 0:
		return fmt.Sprintf("none in %s", limit)
	}
	unit := "steps"
	if strings.HasPrefix(c.Method, "stress") {
		unit = "calls"
	}
	s := fmt.Sprintf("%s (%d %s)", short(c.Median), c.Work, unit)
	if c.Trials > 1 {
		s += fmt.Sprintf(" %s–%s", short(c.Min), short(c.Max))
	}
	if c.Found < c.Trials {
		s += fmt.Sprintf(", %d of %d found", c.Found, c.Trials)
	}
	return s
}

// short renders a duration with three significant digits.
func short(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g µs", float64(d)/float64(time.Microsecond))
}
