package cli

import (
	"fmt"
	"io"
	"slices"
	"time"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/scenario"
)

// wideByProof is the block size above which -strategy auto answers
// -threads N with the proof for every number of threads (check.ProveEveryN)
// where the world is one the proof treats. The explicit search's time
// grows as about N³ (docs/performance.md, "Wide blocks": merged 3 s at
// 128 threads, 17 s at 256, hours at 1024); the proof's does not grow
// with N at all, and a proof for every N is a proof for this one.
const wideByProof = 128

// wideProofBudget bounds the proof's detour when -timeout leaves it
// unbounded: a shape the proof does not close in this long (two calls
// into two modules, docs/every-n.md) goes to the explicit search.
const wideProofBudget = 2 * time.Minute

// wideJSON is -json's summary when the proof answered -threads N: the
// proof's, with the search summary's complete (the verdict covers the
// whole space of N threads).
type wideJSON struct {
	everyNJSON
	Threads  int    `json:"threads"`
	By       string `json:"by"`
	Complete bool   `json:"complete"`
}

// byProof answers a wide -threads N by the proof for every N, where auto
// may: the strategy left to auto, no scenario file or replay, and only
// flags the proof reads. It reports done when the proof verified the
// variant (exit 0) or when it used up -timeout (exit 3). Else it
// says on stderr why the search of the N threads follows, and returns
// the time -timeout leaves it.
func byProof(o *options, stdout, stderr io.Writer) (done bool, code int, left time.Duration, err error) {
	left = o.timeout
	if o.shape.Threads <= wideByProof || o.strategy != check.StrategyAuto || o.replay != "" || o.scenario != "" {
		return false, 0, left, nil
	}
	n := o.shape.Threads
	for _, f := range o.given {
		// -corpus replays counterexamples first: nothing to replay
		// where the proof holds, and the search that follows reads it
		if !slices.Contains(everyNFlags, f) && f != "corpus" {
			fmt.Fprintf(stderr, "explore: %d threads: the proof for every N does not read -%s; searching the %d threads (its time grows as N³: docs/performance.md)\n", n, f, n)
			return false, 0, left, nil
		}
	}
	p, a, _, err := target(o, scenario.MaxThreads)
	if err != nil {
		return false, 0, left, err
	}
	if sc, err := o.shape.Build(); err == nil {
		if prog, err := model.NewProgram(sc, p, a); err == nil && prog.Sections() {
			// auto's search over the critical sections proves the N
			// threads in seconds, and shapes the proof does not close
			// (docs/performance.md, "Critical sections as transactions":
			// merged at 1024 threads 2.2 s where the proof took 8.6 s)
			fmt.Fprintf(stderr, "explore: %d threads: its critical sections commute (docs/performance.md); searching the %d threads over them\n", n, n)
			return false, 0, left, nil
		}
	}
	budget := wideProofBudget
	if o.timeout > 0 && o.timeout < budget {
		budget = o.timeout
	}
	cfg := check.EveryNConfig{Protocol: p, Shape: o.shape, Atomicity: a, Timeout: budget}
	cfg.Shape.Threads = 0
	res, err := check.ProveEveryN(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %d threads: the proof for every N does not treat this world (%s); searching the %d threads\n", n, oneLine(err.Error()), n)
		return false, 0, left, nil
	}
	if o.timeout > 0 {
		left = o.timeout - res.Elapsed
	}
	verified := res.Verdict == check.EveryNVerified
	// with -timeout spent, whatever the proof said short of verified,
	// no search may follow: a -timeout of 0 or less is none at all
	outOfTime := o.timeout > 0 && left <= 0
	if !verified && !outOfTime {
		fmt.Fprintf(stderr, "explore: %d threads: the proof for every N did not prove it (%s); searching the %d threads\n", n, oneLine(res.Describe(cfg)), n)
		return false, 0, left, nil
	}
	// verified, or incomplete with no time left for the search
	shape := threadsWords(o)
	switch {
	case o.json:
		j := wideJSON{everyNJSON: summaryOf(p.Name, a.String(), shape, res), Threads: n, By: "every-n", Complete: verified}
		if err := writeJSON(stdout, j); err != nil {
			return true, 0, left, err
		}
	case verified:
		fmt.Fprintf(stdout, "%s\nverified at N = %d threads per block by the proof for every N (docs/every-n.md; -strategy por searches the %d threads one by one): %s\n",
			proofWorld(p.Name, a.String(), shape), n, n, res.Describe(cfg))
	default:
		fmt.Fprintf(stdout, "%s\nincomplete at N = %d: the proof for every N used up -timeout before the search of the %d threads could start: %s\n",
			proofWorld(p.Name, a.String(), shape), n, n, res.Describe(cfg))
	}
	if verified {
		fmt.Fprintf(stderr, "explore: %s: verified at %d threads per block by the proof for every N in %.1f s\n", p.Name, n, res.Elapsed.Seconds())
		return true, ExitOK, left, nil
	}
	fmt.Fprintf(stderr, "explore: %s: incomplete after %.1f s\n", p.Name, res.Elapsed.Seconds())
	return true, ExitIncomplete, left, nil
}
