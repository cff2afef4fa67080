package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"swapcheck/check"
	"swapcheck/scenario"
)

// threadsFlag is -threads: a number, or "all" for the proof for every
// number of threads per block.
type threadsFlag struct{ o *options }

func (f threadsFlag) String() string {
	if f.o == nil {
		return ""
	}
	if f.o.allThreads {
		return "all"
	}
	return strconv.Itoa(f.o.shape.Threads)
}

func (f threadsFlag) Set(s string) error {
	if s == "all" {
		f.o.allThreads, f.o.shape.Threads = true, 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a number of threads or all, got %q", s)
	}
	f.o.allThreads, f.o.shape.Threads = false, n
	return nil
}

// everyNFlags are the flags -threads all reads.
var everyNFlags = append([]string{"protocol", "atomicity", "timeout", "json", "quiet"}, shapeFlags...)

// everyNJSON is -threads all -json's summary.
type everyNJSON struct {
	Protocol       string   `json:"protocol"`
	Atomicity      string   `json:"atomicity"`
	Shape          string   `json:"shape"`
	Verdict        string   `json:"verdict"`
	RefutedAt      int      `json:"refuted_at,omitempty"`
	Kind           string   `json:"kind,omitempty"`
	Reason         string   `json:"reason,omitempty"`
	ExplicitStates []int    `json:"explicit_states"`
	Cap            int      `json:"cap"`
	AbstractStates int      `json:"abstract_states"`
	Classes        int      `json:"classes"`
	Attempts       []string `json:"attempts,omitempty"`
	ElapsedMS      float64  `json:"elapsed_ms"`
}

// runEveryN is -threads all: the explicit search for 1..4 threads, then
// the counter abstraction (check.ProveEveryN). A refutation prints the
// search's trace at the smallest number of threads that fails.
func runEveryN(o *options, stdout, stderr io.Writer) (int, error) {
	for _, f := range o.given {
		if !slices.Contains(everyNFlags, f) {
			return 0, usagef("-threads all proves a variant for every thread count and reads -protocol, -atomicity, the scenario's shape flags, -timeout, -json and -quiet; -%s does not apply", f)
		}
	}
	o.shape.Threads = 1 // checks every other flag's value
	p, a, _, err := target(o, scenario.MaxThreads)
	o.shape.Threads = 0
	if err != nil {
		return 0, err
	}
	cfg := check.EveryNConfig{Protocol: p, Shape: o.shape, Atomicity: a, Timeout: o.timeout}
	res, err := check.ProveEveryN(cfg)
	if err != nil {
		return 0, usageError{err.Error()}
	}
	shape := shapeWords(o)
	var rep *check.Report
	if res.Verdict == check.EveryNRefuted {
		// the search's own counterexample at the smallest failing N:
		// its trace, and its kind (the prover's search may meet
		// another violation of the same execution first)
		o.shape.Threads = res.RefutedAt
		sc, err := o.shape.Build()
		if err != nil {
			return 0, err
		}
		if rep, err = check.Explore(check.Config{Protocol: p, Scenario: sc, Atomicity: a, Strategy: check.StrategyAuto}); err != nil {
			return 0, usageError{err.Error()}
		}
		if rep.Result.Failure == nil {
			return 0, fmt.Errorf("-threads all: the proof's search failed at %d threads and explore's found nothing there (%s)", res.RefutedAt, rep.Result.Verdict)
		}
		res.Failure = rep.Result.Failure
	}
	if o.json {
		if err := writeJSON(stdout, summaryOf(p.Name, a.String(), shape, res)); err != nil {
			return 0, err
		}
	}
	world := proofWorld(p.Name, a.String(), shape)
	switch res.Verdict {
	case check.EveryNVerified:
		if !o.json {
			fmt.Fprintf(stdout, "%s\n%s\n", world, res.Describe(cfg))
		}
		fmt.Fprintf(stderr, "explore: %s: verified for every number of threads per block in %.1f s\n", p.Name, res.Elapsed.Seconds())
		return ExitOK, nil
	case check.EveryNRefuted:
		if !o.json {
			repro := "go run ./cmd/explore -protocol " + p.Name + " -atomicity " + a.String() + " " + threadsWords(o)
			if err := human(stdout, rep, repro); err != nil {
				return 0, err
			}
		}
		fmt.Fprintf(stderr, "explore: %s: %s\n", p.Name, res.Describe(cfg))
		return ExitViolation, nil
	}
	if !o.json {
		fmt.Fprintf(stdout, "%s\n%s\n", world, res.Describe(cfg))
	}
	fmt.Fprintf(stderr, "explore: %s: incomplete after %.1f s\n", p.Name, res.Elapsed.Seconds())
	return ExitIncomplete, nil
}

// proofWorld is the first line of a proof's report: the variant, the
// atomicity, the shape as typed, and the world every proof covers.
func proofWorld(protocol, atomicity, shape string) string {
	return fmt.Sprintf("%s, %s, %s: one host, one launch of one block, no faults", protocol, atomicity, shape)
}

// summaryOf is a proof's -json summary.
func summaryOf(protocol, atomicity, shape string, res *check.EveryNResult) everyNJSON {
	j := everyNJSON{Protocol: protocol, Atomicity: atomicity, Shape: shape, Verdict: string(res.Verdict), RefutedAt: res.RefutedAt,
		Reason: res.Reason, ExplicitStates: res.ExplicitStates, Cap: res.Cap, AbstractStates: res.AbstractStates,
		Classes: res.Classes, Attempts: res.Attempts, ElapsedMS: float64(res.Elapsed.Microseconds()) / 1000}
	if res.Failure != nil {
		j.Kind = string(res.Failure.Kind)
	}
	return j
}

// writeJSON writes v indented, as every -json summary is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// shapeWords is the shape flags given, as typed (-threads all first).
func shapeWords(o *options) string {
	w := []string{"-threads all"}
	for _, fw := range o.flagArgs {
		if slices.Contains(shapeFlags, fw.name) && fw.name != "threads" {
			w = append(w, strings.Join(fw.words, " "))
		}
	}
	return strings.Join(w, " ")
}

// threadsWords is the shape flags given, with -threads as o has it.
func threadsWords(o *options) string {
	return strings.Replace(shapeWords(o), "-threads all", "-threads "+strconv.Itoa(o.shape.Threads), 1)
}
