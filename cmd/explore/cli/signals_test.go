//go:build unix

package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"swapcheck/cmd/explore/cli"
)

// buildExplore builds the command into a temporary directory, once per
// test binary (TestMain removes it): signals are sent to a real process,
// and TestREADMECommands runs the pages' commands as a user does.
func buildExplore(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	exploreBin.once.Do(func() {
		exploreBin.dir, exploreBin.err = os.MkdirTemp("", "explore-bin-")
		if exploreBin.err != nil {
			return
		}
		exploreBin.path = filepath.Join(exploreBin.dir, "explore")
		exploreBin.out, exploreBin.err = exec.Command("go", "build", "-o", exploreBin.path, "swapcheck/cmd/explore").CombinedOutput()
	})
	require.NoError(t, exploreBin.err, "%s", exploreBin.out)
	return exploreBin.path
}

// exploreBin is the command buildExplore built.
var exploreBin struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

// TestMain removes the command buildExplore built.
func TestMain(m *testing.M) {
	code := m.Run()
	if exploreBin.dir != "" {
		os.RemoveAll(exploreBin.dir)
	}
	os.Exit(code)
}

// started is a running explore whose stderr is read line by line.
type started struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	lines  chan string
	stderr strings.Builder
}

func start(t *testing.T, bin string, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(bin, args...), lines: make(chan string, 1000)}
	s.cmd.Stdout = &s.stdout
	pipe, err := s.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, pipe)
		close(s.lines)
	}()
	return s
}

// waitFor reads stderr until a line containing text (which it returns),
// failing after timeout.
func (s *started) waitFor(t *testing.T, text string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-s.lines:
			require.True(t, ok, "explore ended before printing %q; stderr:\n%s", text, s.stderr.String())
			s.stderr.WriteString(line + "\n")
			if strings.Contains(line, text) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on stderr within %s; stderr:\n%s", text, timeout, s.stderr.String())
		}
	}
}

// wait waits for the process to end within timeout and returns its exit
// status, with all of stderr read.
func (s *started) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for line := range s.lines {
			s.stderr.WriteString(line + "\n")
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(timeout):
		t.Fatalf("explore did not end within %s of the signal; stderr:\n%s", timeout, s.stderr.String())
	}
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// TestSignalsStopASearch: SIGTERM (CI cancellation, kill) and SIGHUP (a
// closed terminal) end a search as Ctrl-C does: incomplete, exit 3, the
// summary printed and saying which signal. The margin is generous: this
// checks the mechanism, not the machine's speed.
func TestSignalsStopASearch(t *testing.T) {
	bin := buildExplore(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			// merged on 8 threads with 2 calls each: a states search of
			// minutes (at about 20 MiB a second; por takes a second),
			// whose progress line (after a second) says it is under way
			s := start(t, bin, "-protocol", "merged", "-threads", "8", "-calls", "2", "-strategy", "states", "-workers", "1", "-json", "-timeout", "10m")
			s.waitFor(t, "elapsed", 60*time.Second)
			require.NoError(t, s.cmd.Process.Signal(sig))
			code := s.wait(t, 30*time.Second)
			require.Equal(t, cli.ExitIncomplete, code, "stderr:\n%s", s.stderr.String())
			var sum summary
			require.NoError(t, json.Unmarshal(s.stdout.Bytes(), &sum), "stdout: %s", s.stdout.String())
			require.Equal(t, "incomplete", sum.Verdict)
			require.Equal(t, "interrupted ("+sig.String()+" signal received)", sum.Stopped)
			require.Contains(t, s.stderr.String(), "explore: merged, incomplete: ")
		})
	}
}

// TestSignalStopsCompare: -compare reports each cell on stderr, and a
// signal prints the table so far, marked incomplete (exit 3).
func TestSignalStopsCompare(t *testing.T) {
	s := start(t, buildExplore(t), "-compare", "-trials", "1", "-duration", "300ms")
	s.waitFor(t, "explore: compare: 1/", 60*time.Second)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	code := s.wait(t, 30*time.Second)
	require.Equal(t, cli.ExitIncomplete, code, "stderr:\n%s", s.stderr.String())
	out := s.stdout.String()
	require.Contains(t, out, "**Incomplete** (interrupted (terminated signal received)): ")
	require.Contains(t, out, "\n| variant | atomicity | scenario |")
	require.Contains(t, out, "\n| `naive` | gil | `-threads 2` |")
	require.Regexp(t, `(?m)^explore: compare: 1/\d+ cells, \d+s elapsed: naive gil -threads 2, auto: `, s.stderr.String())
}
