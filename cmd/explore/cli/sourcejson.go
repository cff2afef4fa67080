package cli

import (
	"cmp"
	"encoding/json"
	"io"
	"time"

	"swapcheck/check"
	"swapcheck/sched"
	"swapcheck/source"
)

// sourceSummary is a -source run's result for a program: what -json
// prints instead of the trace, and what -out writes as summary.json. A
// CI job reads verdict and complete: "verified" with complete true is a
// proof of the world it names; a model gap is "incomplete", never a
// verdict on the file.
type sourceSummary struct {
	Version   string `json:"version"`
	Source    string `json:"source"` // the file as given
	Function  string `json:"function"`
	SHA256    string `json:"sha256"` // of the file's bytes
	Python    string `json:"python"` // the CPython that compiled it, "3.12.1"
	Atomicity string `json:"atomicity"`
	// Strategy is check's name of the search: por (persistent sets of
	// transactions) or states
	Strategy string `json:"strategy"`
	Scenario string `json:"scenario"`
	Faults   string `json:"faults,omitempty"`
	// World is what a verified verdict covers, as the text says it.
	World    string `json:"world"`
	Verdict  string `json:"verdict"`
	Complete bool   `json:"complete"`
	// Want is -want's kind; OtherKinds the other kinds its search met
	// (each ended its execution). A -want search that did not find its
	// kind has the verdict "not-reachable", whatever else it met.
	Want       string   `json:"want,omitempty"`
	OtherKinds []string `json:"other_kinds,omitempty"`
	// Kind, Thread and Message describe the violation (or the model
	// gap); Schedule is its steps, a thread per step, as schedule.txt
	// has them.
	Kind     string           `json:"kind,omitempty"`
	Thread   string           `json:"thread,omitempty"`
	Message  string           `json:"message,omitempty"`
	Schedule []sched.ThreadID `json:"schedule,omitempty"`
	// Stopped says why an incomplete search stopped; Shrunk what
	// shrinking made smaller.
	Stopped    string  `json:"stopped,omitempty"`
	Shrunk     string  `json:"shrunk,omitempty"`
	Executions int64   `json:"executions"`
	States     int64   `json:"states"`
	Steps      int64   `json:"steps"`
	ElapsedMS  float64 `json:"elapsed_ms"`
}

// summary is r's result as sourceSummary says it.
func (r *sourceRun) summary(res sched.Result, elapsed time.Duration) sourceSummary {
	p := r.prog
	in := p.Source.Interpreter
	s := sourceSummary{
		Version: check.Version, Source: p.Source.File, Function: p.Source.Name, SHA256: r.prog.Digest(),
		Python: in.Release(), Atomicity: p.Atomicity.String(), Strategy: cmp.Or(r.strategy, "states"),
		Scenario: p.Scenario.String(), Faults: p.Scenario.Faults.String(), World: r.world(res.Stats.States),
		Verdict: res.Verdict.String(), Complete: res.Verdict == sched.Verified,
		Stopped: res.Cut, Shrunk: r.shrunk,
		Executions: res.Stats.Executions, States: res.Stats.States, Steps: res.Stats.Steps,
		ElapsedMS: float64(elapsed.Microseconds()) / 1e3,
	}
	if r.want != "" {
		s.Want, s.OtherKinds = r.want, r.passed
		if res.Verdict == sched.Verified {
			s.Verdict = "not-reachable"
		}
		if res.Verdict != sched.Violation && len(r.passed) > 0 {
			s.Complete = false // other kinds are: not a verification
		}
	}
	if f := res.Failure; f != nil {
		s.Kind, s.Message, s.Schedule = f.Kind, f.Message, res.Schedule
		if f.Thread >= 0 {
			s.Thread = p.ThreadName(int(f.Thread))
		}
		if f.Kind == source.KindModelGap {
			s.Verdict, s.Complete, s.Schedule = sched.Incomplete.String(), false, nil
		}
	}
	return s
}

// writeJSON writes s as -json prints it.
func (s sourceSummary) writeJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
