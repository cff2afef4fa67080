package source

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// A source schedule file holds what replaying a -source run needs: the
// file as the run was given it and the digest of its bytes (a replay of
// a file that changed since is refused, not run on other code), the
// function, the CPython feature version that compiled it, the atomicity,
// the scenario and the thread of every step.
//
//	# swapcheck source schedule: go run ./cmd/explore -replay THIS_FILE
//	format 1
//	source kernelapi.py:swapped_cuda_module
//	sha256 9f2c...
//	python 3.12
//	atomicity gil
//	kernel thread-context        (only for kernel.py patched: -thread-context)
//	scenario
//	    threads 2
//	    ...
//	end
//	# threads: 0=host 1=b0.t0 2=b0.t1
//	steps 0 0 1 2 ...
//
// Threads are numbered as in -source's traces. Each directive appears
// once; a file of another format is refused. A run without a violation
// writes the file with no steps: it records what was checked, and there
// is nothing to replay.

// ScheduleHeader is a source schedule file's first line; a reader tells
// such a file from check's schedule files by it.
const ScheduleHeader = "# swapcheck source schedule"

// ScheduleFormat is the format this package writes and reads.
const ScheduleFormat = 1

// Schedule is a parsed source schedule file.
type Schedule struct {
	File, Name string // the path as the run was given it, and the function
	SHA256     string // of the file's bytes, lower-case hex
	Python     string // the CPython feature version that compiled it, "3.12"
	Atomicity  model.Atomicity
	// ThreadContext: the run had kernel.py patched (Options.ThreadContext)
	ThreadContext bool
	Scenario      *scenario.Scenario
	Steps         []sched.ThreadID
}

// Digest is the digest a schedule records of a file's bytes.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// WriteSchedule writes the schedule steps of a run of p (the
// counterexample, or none) in the source schedule format; digest is
// Digest of the file's bytes.
func WriteSchedule(out io.Writer, p *Program, digest string, steps []sched.ThreadID) error {
	var b strings.Builder
	if len(steps) > 0 {
		b.WriteString(ScheduleHeader + ": go run ./cmd/explore -replay THIS_FILE\n")
	} else {
		b.WriteString(ScheduleHeader + ": this run found no violation, so there is nothing to replay\n")
	}
	fmt.Fprintf(&b, "format %d\nsource %s:%s\nsha256 %s\npython %s\natomicity %s\n",
		ScheduleFormat, p.Source.File, p.Source.Name, digest, p.Version(), p.Atomicity)
	if p.ThreadContext {
		b.WriteString("kernel " + KernelThreadContext + "\n")
	}
	b.WriteString("scenario\n")
	for _, line := range strings.Split(strings.TrimRight(p.Scenario.String(), "\n"), "\n") {
		fmt.Fprintf(&b, "    %s\n", line)
	}
	b.WriteString("end\n# threads:")
	for t := range p.NumThreads() {
		fmt.Fprintf(&b, " %d=%s", t, p.ThreadName(t))
	}
	b.WriteString("\nsteps")
	for _, t := range steps {
		fmt.Fprintf(&b, " %d", t)
	}
	b.WriteString("\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// KernelThreadContext is the kernel directive's value for kernel.py
// patched (a schedule without the directive ran kernel.py as numba-cuda
// has it).
const KernelThreadContext = "thread-context"

// CheckDigest refuses a digest that is not what Digest writes.
func CheckDigest(d string) error {
	if b, err := hex.DecodeString(d); err != nil || len(b) != sha256.Size || strings.ToLower(d) != d {
		return fmt.Errorf("sha256 %q: want 64 lower-case hex digits", d)
	}
	return nil
}

// CheckPython refuses what is not a CPython feature version ("3.12").
func CheckPython(v string) error {
	if _, err := strconv.ParseFloat(v, 64); err != nil || !strings.HasPrefix(v, "3.") {
		return fmt.Errorf("python %q: want a version such as 3.12", v)
	}
	return nil
}

// IsThreadNumber reports whether a schedule's step n can name a thread.
func IsThreadNumber(n int) bool { return n >= 0 && n <= 1<<16 }

// maxScheduleLine bounds a line of a source schedule file.
const maxScheduleLine = 1 << 24

// ReadSchedule parses a source schedule file. Its errors are one line,
// naming the line of the file where there is one.
func ReadSchedule(in io.Reader) (*Schedule, error) {
	var (
		s        Schedule
		scenText strings.Builder
		inScen   bool
		n        int
		first    = map[string]int{}
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), maxScheduleLine+1)
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 && !strings.HasPrefix(line, ScheduleHeader) {
			return nil, fmt.Errorf("line 1: not a source schedule (want %q)", ScheduleHeader)
		}
		if inScen {
			if strings.TrimSpace(line) == "end" {
				inScen = false
				continue
			}
			scenText.WriteString(strings.TrimSpace(line) + "\n")
			continue
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if at, dup := first[word]; dup {
			return nil, fmt.Errorf("line %d: %s given twice (first on line %d)", n, word, at)
		}
		first[word] = n
		var err error
		switch word {
		case "format":
			if v, e := strconv.Atoi(rest); e != nil || v != ScheduleFormat {
				err = fmt.Errorf("format %q: this explore reads source schedule format %d", rest, ScheduleFormat)
			}
		case "source":
			i := strings.LastIndexByte(rest, ':')
			if i <= 0 || i == len(rest)-1 {
				err = fmt.Errorf("source %q: want FILE:NAME", rest)
				break
			}
			s.File, s.Name = rest[:i], rest[i+1:]
		case "sha256":
			s.SHA256, err = rest, CheckDigest(rest)
		case "python":
			s.Python, err = rest, CheckPython(rest)
		case "atomicity":
			s.Atomicity, err = model.ParseAtomicity(rest)
		case "kernel":
			if rest != KernelThreadContext {
				err = fmt.Errorf("kernel %q: want %s (or no kernel line: kernel.py as numba-cuda has it)", rest, KernelThreadContext)
			}
			s.ThreadContext = true
		case "scenario":
			inScen = true
		case "steps":
			for _, f := range strings.Fields(rest) {
				v, e := strconv.Atoi(f)
				if e != nil || !IsThreadNumber(v) {
					err = fmt.Errorf("step %q is not a thread number", f)
					break
				}
				s.Steps = append(s.Steps, sched.ThreadID(v))
			}
		default:
			err = fmt.Errorf("unknown directive %q (want format, source, sha256, python, atomicity, kernel, scenario or steps)", word)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, maxScheduleLine)
	} else if err != nil {
		return nil, err
	}
	if inScen {
		return nil, fmt.Errorf("the scenario block has no closing \"end\" line")
	}
	for _, d := range []string{"format", "source", "sha256", "python", "atomicity", "scenario", "steps"} {
		if _, ok := first[d]; !ok {
			return nil, fmt.Errorf("no %s line", d)
		}
	}
	scen, err := scenario.Parse(strings.NewReader(scenText.String()))
	if err != nil {
		return nil, fmt.Errorf("scenario block: %v", err)
	}
	s.Scenario = scen
	return &s, nil
}
