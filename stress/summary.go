package stress

import (
	"encoding/json"
	"io"

	"swapcheck/check"
)

// Summary is the machine-readable result (-json).
type Summary struct {
	// Version and Format are those of check.Summary: the explore that
	// wrote it and the files' layout.
	Version     string  `json:"version"`
	Format      int     `json:"format"`
	Backend     string  `json:"backend"`
	Protocol    string  `json:"protocol"`
	Atomicity   string  `json:"atomicity"`
	Scenario    string  `json:"scenario"`
	Threads     int     `json:"threads"`
	Verdict     string  `json:"verdict"`
	Stopped     string  `json:"stopped,omitempty"`
	Seed        uint64  `json:"seed"`
	Gosched     float64 `json:"gosched"`
	Launches    int64   `json:"launches"`
	Calls       int64   `json:"calls"`
	Steps       int64   `json:"steps"`
	ElapsedMS   float64 `json:"elapsed_ms"`
	CallsPerSec float64 `json:"calls_per_sec"`
	StepsPerSec float64 `json:"steps_per_sec"`
	// Violations counts the launches that broke an invariant (KeepGoing).
	Violations int64 `json:"violations,omitempty"`
	LocksLeft  int   `json:"locks_left"`
	// Violation is the first violation.
	Violation *ViolationSummary `json:"violation,omitempty"`
}

// ViolationSummary describes the first violation.
type ViolationSummary struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Thread is the failing thread's name ("" for an end-state failure
	// or a deadlock).
	Thread string `json:"thread"`
	// Launch (1-based), and the step in it (1-based, the last of
	// Schedule).
	Launch int64 `json:"launch"`
	Step   int   `json:"step"`
	// AfterMS and CallsBefore: how long, and how many device calls, it
	// took to find.
	AfterMS     float64 `json:"after_ms"`
	CallsBefore int64   `json:"calls_before"`
	// Reproduced: the simulator replays Schedule to the same failure.
	Reproduced bool   `json:"reproduced"`
	Note       string `json:"note,omitempty"`
	// Schedule is the thread of every step of the launch up to the
	// failure, in the order they took effect (as in schedule.txt).
	Schedule []int `json:"schedule"`
}

// Summarize builds the summary of a result.
func Summarize(r *Result) Summary {
	s := Summary{
		Version:     check.Version,
		Format:      check.FormatVersion,
		Backend:     Backend,
		Protocol:    r.Config.Protocol.Name,
		Atomicity:   r.Config.Atomicity.String(),
		Scenario:    r.Config.Scenario.String(),
		Threads:     r.Config.Scenario.Threads,
		Verdict:     r.Verdict.String(),
		Stopped:     r.Cut,
		Seed:        r.Config.Seed,
		Gosched:     r.Config.Gosched,
		Launches:    r.Launches,
		Calls:       r.Calls,
		Steps:       r.Steps,
		ElapsedMS:   float64(r.Elapsed.Microseconds()) / 1000,
		CallsPerSec: r.CallsPerSec(),
		Violations:  r.Violations,
		LocksLeft:   r.LocksLeft,
	}
	if secs := r.Elapsed.Seconds(); secs > 0 {
		s.StepsPerSec = float64(r.Steps) / secs
	}
	if v := r.Violation; v != nil {
		vs := &ViolationSummary{
			Kind: v.Failure.Kind, Message: v.Failure.Message, Thread: check.FailureThread(r.Program, v.Failure),
			Launch: v.Launch, Step: len(v.Schedule),
			AfterMS: float64(v.After.Microseconds()) / 1000, CallsBefore: v.Calls,
			Reproduced: v.Reproduced, Note: v.Note,
			Schedule: check.ScheduleInts(v.Schedule),
		}
		s.Violation = vs
	}
	return s
}

// WriteJSON writes the summary as indented JSON.
func (s Summary) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // read by people: "threads 4 -> 2", not put in HTML
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
