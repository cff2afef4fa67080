package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"swapcheck/check"
	"swapcheck/check/memory"
	"swapcheck/sched"
)

// progress reports a search that runs longer than a second on stderr: a
// progress bar when stderr is a terminal, otherwise a plain line every few
// seconds; nothing with -quiet. It is fed by sched.Limits.Progress from the
// search's goroutine and owns the clock.
type progress struct {
	out   io.Writer
	start time.Time
	last  time.Time
	total int64 // executions the search will make, when known (walks)
	// limit is -max-memory (0: none), shown with the memory the process
	// holds
	limit int64
	bar   *progressbar.ProgressBar
	tty   bool
	shown bool
}

const (
	progressAfter = time.Second
	plainEvery    = 5 * time.Second
)

func newProgress(stderr io.Writer, quiet bool, total, limit int64) *progress {
	if quiet {
		return nil
	}
	p := &progress{out: stderr, start: time.Now(), total: total, limit: limit}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// update is sched.Limits.Progress.
func (p *progress) update(st sched.Stats) {
	now := time.Now()
	elapsed := now.Sub(p.start)
	if elapsed < progressAfter {
		return
	}
	rate := float64(st.Steps) / elapsed.Seconds()
	desc := fmt.Sprintf("%d states, %d steps, %.2fM steps/s", st.States, st.Steps, rate/1e6) + p.memory()
	if p.tty {
		if p.bar == nil {
			max := int64(-1)
			if p.total > 0 {
				max = p.total
			}
			opts := []progressbar.Option{
				progressbar.OptionSetWriter(p.out),
				progressbar.OptionSetDescription("exploring"),
				progressbar.OptionThrottle(200 * time.Millisecond),
				progressbar.OptionClearOnFinish(),
			}
			if max > 0 {
				// a count and a rate of executions only where there is
				// a total (the walks): an exhaustive search's showed as
				// "(35192413/-", with a rate of its own that disagreed
				// with the steps/s of the description
				opts = append(opts, progressbar.OptionShowCount(),
					progressbar.OptionSetItsString("executions"), progressbar.OptionShowIts())
			}
			p.bar = progressbar.NewOptions64(max, opts...)
		}
		p.bar.Describe(desc)
		_ = p.bar.Set64(st.Executions)
		p.shown = true
		return
	}
	if p.shown && now.Sub(p.last) < plainEvery {
		return
	}
	p.last, p.shown = now, true
	line := fmt.Sprintf("explore: %s elapsed, %s, %s", elapsed.Truncate(time.Second), check.Count(st.Executions, "execution"), desc)
	if p.total > 0 && st.Executions > 0 {
		left := time.Duration(float64(elapsed) * float64(p.total-st.Executions) / float64(st.Executions))
		line += fmt.Sprintf(", about %s left", left.Truncate(time.Second))
	}
	fmt.Fprintln(p.out, line)
}

// done clears the bar before the result is printed.
func (p *progress) done() {
	if p != nil && p.bar != nil {
		_ = p.bar.Clear()
	}
}

// memory is what the process holds, and the bound, for the progress line
// ("" where the system does not say).
func (p *progress) memory() string {
	held := memory.Resident()
	switch {
	case held <= 0:
		return ""
	case p.limit > 0:
		return fmt.Sprintf(", memory %s of %s", memory.Format(held), memory.Format(p.limit))
	}
	return fmt.Sprintf(", memory %s", memory.Format(held))
}
