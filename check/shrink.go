package check

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// ShrinkBudget is how many steps each of the shrinker's searches may take
// (counted as budgeted counts them): a count, not a time, so that what is
// shrunk does not depend on the machine. A smaller scenario whose search
// is cut is not taken. The README's scenarios need at most a few
// thousand steps a search; a scenario of dozens of threads is cut, and
// its counterexample kept.
const ShrinkBudget = 1 << 18

// shrinkBudget is ShrinkBudget, or what a test set (debug).
func shrinkBudget() int64 { return debugOr(debug.shrinkBudget, ShrinkBudget) }

// Shrinking says what shrink made smaller, from what to what. The
// report's Config.Scenario, Program and counterexample are the shrunk
// ones; From is the scenario the search ran on.
type Shrinking struct {
	// Changes are the scenario's dimensions that shrank, in the order
	// of reductions.
	Changes []Change
	From    *scenario.Scenario
	// Shape is the shrunk scenario's shape, when flags built the
	// scenario (Config.Shape); nil for a scenario file.
	Shape *scenario.Shape
	// FlagsReproduce: the command with Shape's flags prints this
	// counterexample again (checked by running its search and shrinking).
	FlagsReproduce bool
	// The counterexample's preemptions and steps, before and after.
	PreemptionsFrom, PreemptionsTo int
	StepsFrom, StepsTo             int
	// Searches counts the searches shrink ran; Cut those its budget or a
	// stop cut, whose scenario or counterexample was then not taken.
	Searches, Cut int
	Steps         int64
	Elapsed       time.Duration
	// Note says what was not shrunk, and why ("" when nothing was left
	// out).
	Note string
}

// Change is one dimension of a scenario that shrank.
type Change struct {
	Dim      string
	From, To string
}

// String says what shrank, for a person: "threads 4 -> 2, calls 2 -> 1;
// preemptions 3 -> 1; steps 41 -> 22", each part only when it shrank.
func (s *Shrinking) String() string {
	var parts []string
	if len(s.Changes) > 0 {
		dims := make([]string, len(s.Changes))
		for i, c := range s.Changes {
			dims[i] = fmt.Sprintf("%s %s -> %s", c.Dim, c.From, c.To)
		}
		parts = append(parts, strings.Join(dims, ", "))
	}
	if s.PreemptionsTo != s.PreemptionsFrom {
		parts = append(parts, fmt.Sprintf("preemptions %d -> %d", s.PreemptionsFrom, s.PreemptionsTo))
	}
	if s.StepsTo != s.StepsFrom {
		parts = append(parts, fmt.Sprintf("steps %d -> %d", s.StepsFrom, s.StepsTo))
	}
	line := strings.Join(parts, "; ")
	if line == "" {
		line = "nothing: no smaller scenario, no fewer preemptions, no fewer steps"
	}
	if s.Cut > 0 {
		line += fmt.Sprintf(" (%s of %d cut by a budget of %d steps or a stop, so it may shrink further)", searchCount(s.Cut), s.Searches, shrinkBudget())
	}
	if s.Note != "" {
		line += "; " + s.Note
	}
	return line
}

// subject is a scenario being shrunk, with the shape the flags built it
// from (nil for a scenario file).
type subject struct {
	shape *scenario.Shape
	sc    *scenario.Scenario
}

// A reduction is one dimension of a scenario that shrink makes smaller:
// it tries each smaller value, the smallest first. A new dimension
// (hosts, faults) is shrunk by adding one entry to reductions.
type reduction struct {
	dim string
	min int
	// get is the dimension's value in s, false when s has none (a
	// scenario file has no calls dimension).
	get func(s subject) (int, bool)
	// set is s with the dimension at v, or an error where no valid
	// scenario has it.
	set func(s subject, v int) (subject, error)
	// show renders a value (nil: as a number).
	show func(v int) string
}

// reductions, in the order shrink tries them: the hosts and threads
// first, which make every later search smallest. Hosts 0 means 1 (see
// scenario.Shape), so a value of 0 is shown and shrunk as 1.
var reductions = []reduction{
	faultsReduction,
	either("hosts", 1, func(sh *scenario.Shape) *int { return &sh.Hosts }, func(sc *scenario.Scenario) *int { return &sc.Hosts }),
	either("threads", 1, func(sh *scenario.Shape) *int { return &sh.Threads }, func(sc *scenario.Scenario) *int { return &sc.Threads }),
	either("blocks", 1, func(sh *scenario.Shape) *int { return &sh.Blocks }, func(sc *scenario.Scenario) *int { return &sc.Blocks }),
	either("launches", 1, nil, func(sc *scenario.Scenario) *int { return &sc.Launches }),
	shaped("calls", 0, func(sh *scenario.Shape) *int { return &sh.Calls }),
	shaped("modules", 1, func(sh *scenario.Shape) *int { return &sh.Modules }),
	shaped("nest", 0, func(sh *scenario.Shape) *int { return &sh.Nest }),
	shaped("names", 1, func(sh *scenario.Shape) *int { return &sh.Names }),
	switched("syncthreads", func(sh *scenario.Shape) *bool { return &sh.Syncthreads }),
	switched("host calls", func(sh *scenario.Shape) *bool { return &sh.HostCalls }),
	switched("branch", func(sh *scenario.Shape) *bool { return &sh.Branch }),
	branchesReduction,
	repeatsReduction,
}

// faultsReduction shrinks the faults per execution (the scenario's
// FaultBound), 0 dropping the faults altogether: a counterexample that
// needs no fault is shown without one.
var faultsReduction = reduction{
	dim: "faults", min: 0,
	get: func(s subject) (int, bool) {
		if s.sc.Faults == 0 {
			return 0, false
		}
		return s.sc.FaultBound(), true
	},
	set: func(s subject, v int) (subject, error) {
		bound := func(fs *scenario.Faults, most *int) {
			*most = 0
			switch {
			case v == 0:
				*fs = 0
			case v > 1:
				*most = v
			}
		}
		if s.shape != nil {
			sh := *s.shape
			bound(&sh.Faults, &sh.MaxFaults)
			return build(sh)
		}
		sc := *s.sc
		bound(&sc.Faults, &sc.MaxFaults)
		return subject{sc: &sc}, sc.Validate()
	},
	show: func(v int) string {
		if v == 0 {
			return "none"
		}
		return strconv.Itoa(v)
	},
}

// switched is an on/off dimension only flags give (a Shape's field).
func switched(dim string, field func(*scenario.Shape) *bool) reduction {
	return reduction{
		dim: dim, min: 0,
		get: func(s subject) (int, bool) {
			if s.shape == nil {
				return 0, false
			}
			if *field(s.shape) {
				return 1, true
			}
			return 0, true
		},
		set: func(s subject, v int) (subject, error) {
			sh := *s.shape
			*field(&sh) = v == 1
			return build(sh)
		},
		show: func(v int) string { return map[bool]string{true: "on", false: "off"}[v == 1] },
	}
}

// shaped is a dimension only flags give (a Shape's field).
func shaped(dim string, least int, field func(*scenario.Shape) *int) reduction {
	return either(dim, least, field, nil)
}

// either is a dimension of a shape (field, nil when shapes have none)
// or of a scenario file (scField, nil when files have none to shrink
// generically).
func either(dim string, least int, field func(*scenario.Shape) *int, scField func(*scenario.Scenario) *int) reduction {
	return reduction{
		dim: dim, min: least,
		get: func(s subject) (int, bool) {
			switch {
			case s.shape != nil && field != nil:
				return *field(s.shape), true
			case s.shape == nil && scField != nil:
				return *scField(s.sc), true
			}
			return 0, false
		},
		set: func(s subject, v int) (subject, error) {
			if s.shape != nil {
				sh := *s.shape
				*field(&sh) = v
				return build(sh)
			}
			sc := *s.sc
			*scField(&sc) = v
			return subject{sc: &sc}, sc.Validate()
		},
	}
}

func build(sh scenario.Shape) (subject, error) {
	sc, err := sh.Build()
	return subject{shape: &sh, sc: sc}, err
}

// shrinker holds one shrink's searches.
type shrinker struct {
	cfg  Config
	kind string
	harm Harm
	lim  sched.Limits
	sh   *Shrinking
	// tried holds each scenario's search, by its text: the fixpoint's
	// last pass asks again of scenarios already searched.
	tried map[string]found
}

// found is a search for a counterexample of the shrinker's kind.
type found struct {
	prog *model.Program
	res  sched.Result
	ok   bool // a violation of the kind, replayed and checked
	cut  bool // the budget or a stop cut the search
}

// shrink makes the counterexample minimal, keeping its violation kind
// and class (Harm):
// first the scenario, each reduction in turn, greedily to a fixpoint (a
// smaller scenario is taken when a search of its states finds a
// violation of the same kind within ShrinkBudget steps); then the
// preemptions, then the steps (see fewest). Every counterexample it
// takes is replayed first and must fail with the same kind; one that
// does not, or a search that is cut, leaves what it had. The searches
// are deterministic, so the same input shrinks to the same
// counterexample on every run.
func (r *Report) shrink(lim sched.Limits) {
	start := time.Now()
	kind := r.Result.Failure.Kind
	harm := FailureHarm(r.Program, r.Result.Schedule, r.Result.Failure)
	sh := &Shrinking{From: r.Config.Scenario, Shape: r.Config.Shape,
		PreemptionsFrom: r.Preemptions, StepsFrom: len(r.Result.Schedule)}
	r.Shrink = sh
	defer func() {
		sh.PreemptionsTo, sh.StepsTo = r.Preemptions, len(r.Result.Schedule)
		sh.Elapsed = time.Since(start)
	}()
	if kind == KindNotLinearizable {
		sh.Note = "not-linearizable is found only on a whole execution's history, which the shrinker's searches do not record"
		return
	}
	lim.Progress, lim.MaxExecutions = nil, 0
	s := &shrinker{cfg: r.Config, kind: kind, harm: harm, lim: lim, sh: sh, tried: map[string]found{}}

	// the scenario
	from := subject{shape: r.Config.Shape, sc: r.Config.Scenario}
	if from.shape != nil {
		shape := *from.shape
		from.shape = &shape
	} else {
		sh.Note = "a scenario file: its threads, blocks, launches, branches and repeat counts are shrunk, not the rest of its bodies"
	}
	cur, best := s.scenario(from)
	prog, res := r.Program, r.Result
	if best.ok {
		prog, res = best.prog, best.res
	}
	// the preemptions and the steps, never more steps than the search
	// found; should the smaller scenario need more, or more preemptions
	// (one without a fault may need switches the fault spared), the
	// scenario searched stays
	res = s.fewest(prog, res, len(r.Result.Schedule))
	if len(res.Schedule) > len(r.Result.Schedule) || sched.CountPreemptions(NewSystem(prog), res.Schedule) > r.Preemptions {
		cur, prog = from, r.Program
		res = s.fewest(prog, r.Result, len(r.Result.Schedule))
	}
	for _, red := range reductions {
		a, ok := red.get(from)
		b, _ := red.get(cur)
		if ok && a != b {
			show := red.show
			if show == nil {
				show = func(v int) string { return fmt.Sprint(v) }
			}
			sh.Changes = append(sh.Changes, Change{Dim: red.dim, From: show(a), To: show(b)})
		}
	}
	r.Config.Scenario, r.Config.Shape, r.Program = cur.sc, cur.shape, prog
	r.Result.Failure, r.Result.Schedule = res.Failure, res.Schedule
	r.Preemptions = sched.CountPreemptions(NewScopedSystem(prog, r.Config.Scope), res.Schedule)
	sh.Shape = cur.shape
	sh.FlagsReproduce = cur.shape != nil && (len(sh.Changes) == 0 || !s.cfg.rerun && s.reproduces(r))
}

// fewest returns the counterexample of prog with the fewest preemptions
// among those of at most most steps, and the shortest of those: for P
// from the fewest preemptions any counterexample has (a bounded
// search's first) up, the first breadth-first search bounded to P
// preemptions whose shortest has at most most steps. The fewest
// preemptions come first, as the issue asks, but not at the cost of a
// longer trace than the search found: a race that needs one more switch
// can take fewer steps. From the preemptions of the shortest
// counterexample of all (an unbounded breadth-first search) on, the
// bound changes nothing, and that one ends the loop; so does a bounded
// search cut by its budget (a larger bound costs more). It returns res
// when no search does better within its budget.
func (s *shrinker) fewest(prog *model.Program, res sched.Result, most int) sched.Result {
	lo := sched.CountPreemptions(NewScopedSystem(prog, s.cfg.Scope), res.Schedule)
	if f := s.search(prog, sched.Bounded{MaxPreemptions: lo}, -1); f.ok {
		lo = sched.CountPreemptions(NewScopedSystem(prog, s.cfg.Scope), f.res.Schedule)
	}
	shortest := s.search(prog, sched.BFS{}, -1)
	if !shortest.ok {
		shortest.res = res
	}
	top := sched.CountPreemptions(NewScopedSystem(prog, s.cfg.Scope), shortest.res.Schedule)
	for p := lo; p < top; p++ {
		short := s.search(prog, sched.BFS{}, p)
		if short.ok && len(short.res.Schedule) <= most {
			return short.res
		}
		if short.cut {
			break
		}
	}
	if len(shortest.res.Schedule) <= most {
		return shortest.res
	}
	return res
}

// scenario shrinks from greedily: each reduction in turn tries every
// smaller value, the smallest first, and takes the first whose search
// finds the kind; passes repeat until one takes nothing. It returns the
// smallest scenario and its search (not ok when nothing shrank).
func (s *shrinker) scenario(from subject) (subject, found) {
	cur, best := from, found{}
	for changed := true; changed; {
		changed = false
		for _, red := range reductions {
			v, ok := red.get(cur)
			if !ok {
				continue
			}
			for c := red.min; c < v; c++ {
				if s.lim.Cancel != nil && s.lim.Cancel() {
					return cur, best
				}
				next, err := red.set(cur, c)
				if err != nil {
					continue
				}
				if f := s.try(next.sc); f.ok {
					cur, best, changed = next, f, true
					break
				}
			}
		}
	}
	return cur, best
}

// try searches a scenario for the kind, once.
func (s *shrinker) try(sc *scenario.Scenario) found {
	key := sc.String()
	if f, seen := s.tried[key]; seen {
		return f
	}
	prog, err := model.NewProgram(sc, s.cfg.Protocol, s.cfg.Atomicity)
	var f found
	if err == nil {
		// one pass over the states (up to symmetry) settles whether the
		// kind is there; a bounded search would go over the (state, last
		// thread) pairs once a round, and most smaller scenarios have
		// no such counterexample to end it early
		f = s.search(prog, sched.States{}, -1)
	}
	s.tried[key] = f
	return f
}

// search runs strat on prog aimed at the kind (with at most bound
// preemptions, when bound is 0 or more) within the budget, and checks
// what it finds by a replay.
func (s *shrinker) search(prog *model.Program, strat sched.Strategy, bound int) found {
	lim, spent := budgeted(s.lim, shrinkBudget())
	res := strat.Run(newAimed(NewScopedSystem(prog, s.cfg.Scope), s.kind, s.harm, bound), lim)
	s.sh.Searches++
	s.sh.Steps += res.Stats.Steps
	if *spent || res.Verdict == sched.Incomplete {
		s.sh.Cut++
	}
	ok := res.Verdict == sched.Violation && s.replaysTo(prog, res.Schedule)
	return found{prog: prog, res: res, ok: ok, cut: *spent || res.Verdict == sched.Incomplete}
}

// replaysTo reports whether schedule, replayed on prog as -replay does,
// fails with the shrinker's kind and class.
func (s *shrinker) replaysTo(prog *model.Program, schedule []sched.ThreadID) bool {
	sys := NewScopedSystem(prog, s.cfg.Scope)
	sys.RecordHistory()
	res, err := sched.Replay(sys, schedule, sched.Limits{})
	return err == nil && res.Verdict == sched.Violation && res.Failure.Kind == s.kind &&
		FailureHarm(prog, res.Schedule, res.Failure) == cmp.Or(s.harm, Harmful)
}

// reproduces reports whether the command with the shrunk scenario's
// flags prints r's counterexample again: it runs that command's search,
// shrinking included, and compares.
func (s *shrinker) reproduces(r *Report) bool {
	cfg := s.cfg
	cfg.Scenario, cfg.Shape, cfg.rerun = r.Config.Scenario, r.Config.Shape, true
	cfg.Progress, cfg.Stop = nil, s.lim.Cancel
	again, err := Explore(cfg)
	if err != nil || again.Shrink == nil {
		return false
	}
	s.sh.Searches += again.Shrink.Searches + 1
	s.sh.Steps += again.Result.Stats.Steps + again.Shrink.Steps
	return again.Result.Verdict == sched.Violation && *again.Result.Failure == *r.Result.Failure &&
		again.Config.Scenario.String() == r.Config.Scenario.String() && slices.Equal(again.Result.Schedule, r.Result.Schedule)
}

// searchCount is "1 search", "2 searches".
func searchCount(n int) string {
	if n == 1 {
		return "1 search"
	}
	return fmt.Sprintf("%d searches", n)
}
