package check

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A schedule file holds everything a replay needs: protocol, atomicity,
// scenario and the thread of every step.
//
//	# swapcheck schedule
//	format 2 (explore 0.1.0)
//	protocol naive
//	atomicity gil
//	violations harmful
//	scenario
//	    threads 2
//	    ...
//	end
//	steps 0 0 1 2 ...
//
// Threads are numbered as in traces: 0 is the host, then GPU threads.
// Each directive appears once. The format line (FormatVersion, and the
// Version that wrote the file) is absent from files written before it
// existed, which are format 1; a file of another format is refused.
// "violations" is the search's Scope: which violations end an execution,
// so that the replay ends where the search did; without it, a file of
// format 1 replays with ScopeAll, one of format 2 with ScopeHarmful.

// Schedule is a parsed schedule file.
type Schedule struct {
	Protocol  *model.Protocol
	Atomicity model.Atomicity
	// Scope is which violations the search that wrote it looked for.
	Scope    Scope
	Scenario *scenario.Scenario
	Steps    []sched.ThreadID
	// Recorded is the violation a trace.json recorded, which its replay
	// should end in again (nil for a schedule.txt, which records none).
	Recorded *TraceViolation
	// RecordedBy is the explore that wrote the trace.json.
	RecordedBy string
	// Shrunk and Corpus are what the file recorded of how its
	// counterexample was found (Trace.Shrunk, Trace.Corpus): a replay
	// shows them again, so that it prints the trace the run printed.
	Shrunk, Corpus string
}

// The schedule file's comments that record how its counterexample was
// found; readers that do not know them skip them as comments.
const (
	shrunkComment = "# shrunk: "
	corpusComment = "# corpus: "
)

// WriteSchedule writes the counterexample of r (or, without one, the
// walk of a search of one walk that found no violation, or else the
// configuration with no steps) in the schedule file format.
func WriteSchedule(out io.Writer, r *Report) error {
	var b strings.Builder
	steps := r.Result.Schedule
	switch {
	case len(steps) > 0:
		b.WriteString("# swapcheck schedule: go run ./cmd/explore -replay THIS_FILE\n")
	case len(r.Result.Walk) > 0:
		steps = r.Result.Walk
		b.WriteString("# swapcheck schedule of a walk that found no violation: go run ./cmd/explore -replay THIS_FILE\n")
	default:
		b.WriteString("# swapcheck schedule: this run found no violation, so there is nothing to replay\n")
	}
	fmt.Fprintf(&b, "format %d (explore %s)\n", FormatVersion, Version)
	fmt.Fprintf(&b, "protocol %s\natomicity %s\nviolations %s\nscenario\n", r.Config.Protocol.Name, r.Config.Atomicity, cmp.Or(r.Config.Scope, ScopeHarmful))
	for _, line := range strings.Split(strings.TrimRight(r.Config.Scenario.String(), "\n"), "\n") {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	b.WriteString("end\n")
	names := make([]string, r.Program.NumThreads())
	for t := range names {
		names[t] = fmt.Sprintf("%d=%s", t, r.Program.ThreadName(t))
	}
	if text := r.ShrunkText(); text != "" {
		b.WriteString(shrunkComment + text + "\n")
	}
	if r.Corpus != "" {
		b.WriteString(corpusComment + r.Corpus + "\n")
	}
	fmt.Fprintf(&b, "# threads: %s\nsteps", strings.Join(names, " "))
	for _, t := range steps {
		fmt.Fprintf(&b, " %d", t)
	}
	b.WriteString("\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// ReadSchedule parses a schedule file.
func ReadSchedule(in io.Reader) (*Schedule, error) {
	var (
		s            Schedule
		scenarioText strings.Builder
		inScen       bool
		sawSteps     bool
		n            int
		format       int
		first        = map[string]int{} // the line of each directive
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), maxScheduleLine+1) // the line and its newline
	for sc.Scan() {
		n++
		line := sc.Text()
		if inScen {
			if strings.TrimSpace(line) == "end" {
				inScen = false
				continue
			}
			scenarioText.WriteString(strings.TrimSpace(line) + "\n")
			continue
		}
		line = strings.TrimSpace(line)
		if text, ok := strings.CutPrefix(line, shrunkComment); ok {
			s.Shrunk = text
		}
		if text, ok := strings.CutPrefix(line, corpusComment); ok {
			s.Corpus = text
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if at, dup := first[word]; dup {
			return nil, fmt.Errorf("line %d: %s given twice (first on line %d)", n, word, at)
		}
		first[word] = n
		switch word {
		case "format":
			v, err := readFormat(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			format = v
		case "violations":
			sc, err := ParseScope(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			s.Scope = sc
		case "protocol":
			p, err := Lookup(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			s.Protocol = p
		case "atomicity":
			a, err := model.ParseAtomicity(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			s.Atomicity = a
		case "scenario":
			inScen = true
		case "steps":
			sawSteps = true
			for _, f := range strings.Fields(rest) {
				v, err := strconv.Atoi(f)
				if err != nil || v < 0 {
					return nil, fmt.Errorf("line %d: step %q is not a thread number", n, f)
				}
				s.Steps = append(s.Steps, sched.ThreadID(v))
			}
		default:
			return nil, fmt.Errorf("line %d: unknown directive %q (want format, protocol, atomicity, violations, scenario or steps)", n, word)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, maxScheduleLine)
	} else if err != nil {
		return nil, err
	}
	switch {
	case inScen:
		return nil, fmt.Errorf("the scenario block has no closing \"end\" line")
	case s.Protocol == nil:
		return nil, fmt.Errorf("no protocol line")
	case s.Atomicity == 0:
		return nil, fmt.Errorf("no atomicity line")
	case scenarioText.Len() == 0:
		return nil, fmt.Errorf("no scenario block")
	case !sawSteps:
		return nil, fmt.Errorf("no steps line")
	}
	scen, err := scenario.Parse(strings.NewReader(scenarioText.String()))
	if err != nil {
		return nil, fmt.Errorf("scenario block: %v", err)
	}
	s.Scope = cmp.Or(s.Scope, formatScope(format))
	s.Scenario = scen
	return &s, nil
}

// maxScheduleLine bounds a schedule file's lines: the steps line of the
// longest counterexample a search can print fits many times over.
const maxScheduleLine = 1 << 26

// readFormat reads a format line's "N (explore VERSION)", and returns N.
func readFormat(rest string) (int, error) {
	num, writer, _ := strings.Cut(rest, " ")
	writer = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(writer), "(explore "), ")")
	if strings.ContainsFunc(writer, func(r rune) bool { return r < ' ' || r > '~' }) {
		writer = strconv.Quote(writer) // no raw control characters in a message
	}
	v, err := strconv.Atoi(num)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("format %q is not a format number", num)
	}
	return v, checkFormat("schedule", v, writer)
}

// Replay runs a schedule file's steps, checked as a search would, and
// reports as Explore does (strategy "replay").
func Replay(s *Schedule) (*Report, error) {
	prog, err := model.NewProgram(s.Scenario, s.Protocol, s.Atomicity)
	if err != nil {
		return nil, err
	}
	scope := cmp.Or(s.Scope, ScopeHarmful)
	sys := NewScopedSystem(prog, scope)
	sys.RecordHistory()
	res, err := sched.Replay(sys, s.Steps, sched.Limits{})
	if err != nil {
		return nil, fmt.Errorf("the schedule does not fit its scenario: %v", err)
	}
	cfg := Config{Protocol: s.Protocol, Scenario: s.Scenario, Atomicity: s.Atomicity, Strategy: "replay", Scope: scope}
	rep := &Report{Config: cfg, Program: prog, Result: res, LocksLeft: sys.LocksLeft(), Faulted: sys.Faulted(), PeakRSSBytes: peakRSS(),
		recordedShrunk: s.Shrunk, Corpus: s.Corpus}
	rep.AfterFailures, rep.AfterFailureKinds = sys.AfterFailures()
	if res.Verdict == sched.Violation {
		rep.Preemptions = sched.CountPreemptions(NewScopedSystem(prog, scope), res.Schedule)
		rep.Harm = FailureHarm(prog, res.Schedule, res.Failure)
	}
	return rep, nil
}
