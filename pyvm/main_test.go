package pyvm_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	"swapcheck/internal/pyfind"
	"swapcheck/pysource"
	"swapcheck/pyvm"
)

// The tests that need a real CPython find it once (pysource.Candidates),
// and talk to one long-lived harness process per version
// (testdata/harness.py): the whole differential run costs one interpreter
// start per version.

func TestMain(m *testing.M) {
	code := m.Run()
	harnesses.Range(func(_, h any) bool {
		h.(*harness).close()
		return true
	})
	os.Exit(code)
}

// interpreter returns the CPython of version v, or skips the test (fails
// it under SWAPCHECK_REQUIRE_PYTHON=1) with a message.
func interpreter(t testing.TB, v pyvm.Version) pysource.Interpreter {
	t.Helper()
	if interpreterFound(v) {
		for _, in := range pyfind.Interpreters() {
			if in.Version == v && in.Implementation == "cpython" {
				return in
			}
		}
	}
	msg := fmt.Sprintf("no CPython %s found on PATH or under pyenv: install it to run this test", v)
	if os.Getenv("SWAPCHECK_REQUIRE_PYTHON") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return pysource.Interpreter{}
}

// interpreterFound reports whether a CPython of version v was found.
func interpreterFound(v pyvm.Version) bool {
	for _, in := range pyfind.Interpreters() {
		if in.Version == v && in.Implementation == "cpython" {
			return true
		}
	}
	return false
}

// harness is one running testdata/harness.py.
type harness struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	err error
}

var harnesses sync.Map // pyvm.Version -> *harness

// harnessFor returns version v's harness, started on first use.
func harnessFor(t testing.TB, v pyvm.Version) *harness {
	t.Helper()
	in := interpreter(t, v)
	h, loaded := harnesses.LoadOrStore(v, &harness{})
	hh := h.(*harness)
	hh.mu.Lock()
	defer hh.mu.Unlock()
	if !loaded {
		cmd := exec.Command(in.Path, "-I", "-S", "testdata/harness.py", "../pysource/dump.py")
		cmd.Stderr = os.Stderr
		w, err := cmd.StdinPipe()
		if err == nil {
			var r io.ReadCloser
			r, err = cmd.StdoutPipe()
			if err == nil {
				err = cmd.Start()
				hh.cmd, hh.in, hh.out = cmd, w, bufio.NewReaderSize(r, 1<<20)
			}
		}
		hh.err = err
	}
	if hh.err != nil {
		t.Fatalf("starting the CPython %s harness: %v", v, hh.err)
	}
	return hh
}

func (h *harness) close() {
	if h.in != nil {
		h.in.Close()
		h.cmd.Wait()
	}
}

// Case is one differential case: a module's source, the function called
// with no arguments (if any), and steps driving context managers.
type Case struct {
	File   string  `json:"file"`
	Source string  `json:"source"`
	Call   string  `json:"call,omitempty"`
	Steps  [][]any `json:"steps,omitempty"`
}

// PyResult is the harness's answer.
type PyResult struct {
	Hang    string          `json:"hang"`
	Syntax  string          `json:"syntax"`
	Module  json.RawMessage `json:"module"`
	Setup   []string        `json:"setup"`
	Globals any             `json:"globals"`
	Ret     any             `json:"ret"`
	Exc     []string        `json:"exc"`
	Steps   []StepResult    `json:"steps"`
}

// StepResult is one step's outcome: its value or exception, and the
// globals after it.
type StepResult struct {
	Value   any      `json:"value,omitempty"`
	Exc     []string `json:"exc,omitempty"`
	Globals any      `json:"globals"`
}

// fataler is what run needs of a test (a *testing.T or a *rapid.T).
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// run sends c and reads the answer.
func (h *harness) run(t fataler, c Case) PyResult {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := json.Marshal(c)
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("harness: %v", err)
	}
	line, err := h.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("harness: %v", err)
	}
	var r PyResult
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("harness answer: %v", err)
	}
	if r.Hang != "" {
		t.Fatalf("%s: %s", c.File, r.Hang)
	}
	return r
}
