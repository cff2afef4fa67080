package pyvm

import (
	"encoding/json"
	"fmt"
)

// ObserveForTest renders what a state's future depends on that a test can
// name without the key: every thread (its status, result and handled
// exception, and each frame's code, position, locals and stack), the
// loaded module's globals and the given values, through one Renderer (one
// numbering of mutable objects in the order they are met). It is the
// oracle of TestKeyIsSound: states with equal keys must render equally.
func (s *State) ObserveForTest(extra ...Value) string {
	r := NewRenderer(s)
	var out []any
	for i := range s.threads {
		th := &s.threads[i]
		frames := []any{}
		for _, f := range th.frames {
			fo := s.heap.get(ref(f)).(*frameObj)
			name := fmt.Sprintf("native%d", fo.native)
			if fo.code != nil {
				name = fo.code.QualName
			}
			frames = append(frames, []any{name, fo.pc, fo.lasti, r.renderAll(fo.locals), r.renderAll(fo.stack), r.renderAll(fo.tmp)})
		}
		out = append(out, []any{th.busy, r.Render(th.result), r.Render(th.raised), r.Render(th.excBase), frames})
	}
	out = append(out, r.Render(s.module), r.renderAll(extra))
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}
