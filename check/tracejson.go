package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"swapcheck/model"
	"swapcheck/scenario"
	"swapcheck/sched"
)

// WriteJSON writes the trace as trace.json: JSON whose layout
// docs/trace-format.md describes, the fields in a fixed order, indented
// as json.MarshalIndent does but for the schedule, on one line, and the
// steps, one a line, so that a person reads (and a golden file diffs) a
// step as a line.
func (t *Trace) WriteJSON(out io.Writer) error { return writeFields(out, *t) }

// WriteJSON writes a -source run's trace.json, laid out as Trace's.
func (t *SourceTrace) WriteJSON(out io.Writer) error { return writeFields(out, *t) }

// writeFields writes the struct trace as WriteJSON lays it out.
func writeFields(out io.Writer, trace any) error {
	var b bytes.Buffer
	b.WriteString("{")
	v := reflect.ValueOf(trace)
	first := true
	for i := range v.NumField() {
		name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if opts == "omitempty" && (f.IsZero() || f.Kind() == reflect.Slice && f.Len() == 0) {
			continue
		}
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "\n  %q: ", name)
		var (
			val []byte
			err error
		)
		switch name {
		case "schedule":
			val, err = marshal(f.Interface(), "")
		case "steps":
			val, err = stepLines(f)
		default:
			val, err = marshal(f.Interface(), "  ")
		}
		if err != nil {
			return err
		}
		b.Write(val)
	}
	b.WriteString("\n}\n")
	_, err := out.Write(b.Bytes())
	return err
}

// marshal is v as JSON, indented under prefix as json.MarshalIndent
// indents (on one line when prefix is ""), with "<", ">" and "&" as
// they are: a trace is read by people ("threads 4 -> 2"), not put in
// HTML.
func marshal(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if prefix != "" {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// stepLines renders steps (a slice) as a JSON array, one step a line.
func stepLines(steps reflect.Value) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range steps.Len() {
		line, err := marshal(steps.Index(i).Interface(), "")
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		b.Write(line)
	}
	b.WriteString("\n  ]")
	return b.Bytes(), nil
}

// ReadTrace parses a trace.json. It refuses, in one line, a file that is
// not a trace (no "schema": "swapcheck-trace") and one of another format,
// naming both formats.
func ReadTrace(data []byte) (*Trace, error) {
	var head struct {
		Schema  string `json:"schema"`
		Format  int    `json:"format"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a trace.json: %v", err)
	}
	if head.Schema != TraceSchema {
		return nil, fmt.Errorf("not a trace.json: its \"schema\" is %q, not %q", versionText(head.Schema), TraceSchema)
	}
	if head.Format == 0 {
		return nil, fmt.Errorf("trace.json without a \"format\" field")
	}
	if err := checkFormat("trace", head.Format, versionText(head.Version)); err != nil {
		return nil, err
	}
	var t Trace
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a trace.json: %v", err)
	}
	return &t, nil
}

// traceHead is what a trace.json says before its scenario: what the file
// is, its format, its writer, protocol and atomicity.
type traceHead struct {
	Schema, Version, Protocol, Atomicity string
	Format                               int
}

// readTraceHead reads a trace.json's head, and checks it as ReadTrace
// does, without decoding the rest (its steps are most of the file): a
// corpus tells by the head which of its files a search needs whole.
func readTraceHead(data []byte) (traceHead, error) {
	var h traceHead
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return h, fmt.Errorf("not a trace.json: not a JSON object")
	}
	for dec.More() && (h.Schema == "" || h.Format == 0 || h.Protocol == "" || h.Atomicity == "") {
		tok, err := dec.Token()
		if err != nil {
			return h, fmt.Errorf("not a trace.json: %v", err)
		}
		var dst any = new(json.RawMessage)
		switch tok {
		case "schema":
			dst = &h.Schema
		case "format":
			dst = &h.Format
		case "version":
			dst = &h.Version
		case "protocol":
			dst = &h.Protocol
		case "atomicity":
			dst = &h.Atomicity
		}
		if err := dec.Decode(dst); err != nil {
			return h, fmt.Errorf("not a trace.json: %v", err)
		}
	}
	switch {
	case h.Schema != TraceSchema:
		return h, fmt.Errorf("not a trace.json: its \"schema\" is %q, not %q", versionText(h.Schema), TraceSchema)
	case h.Format == 0:
		return h, fmt.Errorf("trace.json without a \"format\" field")
	}
	return h, checkFormat("trace", h.Format, versionText(h.Version))
}

// Replayable is what a replay of the trace needs: its protocol, atomicity,
// scenario (parsed from its text, which must agree with the parsed shape
// beside it) and schedule, and the violation it recorded (Differs
// compares a replay's with it). The steps are a rendering, not read: the
// replay recomputes them.
func (t *Trace) Replayable() (*Schedule, error) {
	p, err := Lookup(t.Protocol)
	if err != nil {
		return nil, fmt.Errorf("protocol: %v", err)
	}
	a, err := model.ParseAtomicity(t.Atomicity)
	if err != nil {
		return nil, fmt.Errorf("atomicity: %v", err)
	}
	if t.Scenario.Text == "" {
		return nil, fmt.Errorf("no scenario text")
	}
	sc, err := scenario.Parse(strings.NewReader(t.Scenario.Text))
	if err != nil {
		return nil, fmt.Errorf("scenario text: %v", err)
	}
	if field := disagreement(traceScenario(sc), t.Scenario); field != "" {
		return nil, fmt.Errorf("the scenario's %s disagree with its text", field)
	}
	scope := formatScope(t.Format)
	if t.Violations != "" {
		if scope, err = ParseScope(t.Violations); err != nil {
			return nil, fmt.Errorf("violations: %v", err)
		}
	}
	s := &Schedule{Protocol: p, Atomicity: a, Scope: scope, Scenario: sc, Recorded: t.Violation, RecordedBy: versionText(t.Version),
		Shrunk: t.Shrunk, Corpus: t.Corpus}
	for i, n := range t.Schedule {
		if n < 0 {
			return nil, fmt.Errorf("schedule step %d: %d is not a thread number", i+1, n)
		}
		s.Steps = append(s.Steps, sched.ThreadID(n))
	}
	return s, nil
}

// disagreement names the first field of the parsed shape in which got
// differs from want ("" when they agree). The text itself may differ in
// spacing and comments: only its meaning is compared.
func disagreement(want, got TraceScenario) string {
	switch {
	case want.Threads != got.Threads:
		return "threads"
	case want.Blocks != got.Blocks:
		return "blocks"
	case want.Launches != got.Launches:
		return "launches"
	case !reflect.DeepEqual(want.Modules, got.Modules):
		return "modules"
	case !reflect.DeepEqual(want.Functions, got.Functions):
		return "functions"
	case !reflect.DeepEqual(want.Kernel, got.Kernel):
		return "kernel"
	}
	return ""
}

// ReadReplay parses what -replay reads: a trace.json or a schedule.txt,
// told apart by content (a JSON object begins with "{", a schedule file
// never does).
func ReadReplay(data []byte) (*Schedule, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return ReadSchedule(bytes.NewReader(data))
	}
	t, err := ReadTrace(data)
	if err != nil {
		return nil, err
	}
	return t.Replayable()
}

// Differs says, in one line, how a replay of s ended otherwise than the
// trace.json it came from recorded ("" when it ended the same, or s
// records nothing): the model changed since the file was written.
func (s *Schedule) Differs(r *Report) string {
	if s.Recorded == nil {
		return ""
	}
	f := r.Result.Failure
	if f != nil && f.Kind == s.Recorded.Kind && f.Message == s.Recorded.Message {
		return ""
	}
	now := "no violation (" + r.Result.Verdict.String() + ")"
	if f != nil {
		now = fmt.Sprintf("%s (%s)", f.Kind, f.Message)
	}
	return fmt.Sprintf("the replay ends in %s, but explore %s recorded %s (%s) in the file: the model has changed since", now, s.RecordedBy, s.Recorded.Kind, s.Recorded.Message)
}
