package variants_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/check"
	"swapcheck/model"
	"swapcheck/naive"
	"swapcheck/scenario"
	"swapcheck/swap"
)

// explorePanics runs an exhaustive search of p on two threads, on one
// goroutine, and returns what it panicked with ("" if it did not).
func explorePanics(t *testing.T, p func() *model.Protocol) (msg string) {
	t.Helper()
	sc, err := scenario.DefaultShape.Build()
	require.NoError(t, err)
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	_, err = check.Explore(check.Config{Protocol: p(), Scenario: sc, Atomicity: model.GIL, Strategy: check.StrategyDFS, Workers: 1})
	require.NoError(t, err)
	return ""
}

// TestDeclaredFactsAreChecked: the facts a protocol declares of its
// listing, which POR and the end-state checks rely on (model.Protocol),
// are checked as the listing runs. Each declared where it is false makes
// the first search of the variant panic, naming the fact and the step; and
// a step that deletes a registry entry without saying so (Instr.Deletes,
// which KeepsLockEntries is read from) does too.
func TestDeclaredFactsAreChecked(t *testing.T) {
	// flip is p with f applied, compiled; compiling may already find
	// the contradiction, which is caught as the search's would be
	flip := func(p *model.Protocol, f func(*model.Protocol)) func() *model.Protocol {
		return func() *model.Protocol {
			q := *p
			q.Code = append([]model.Instr(nil), p.Code...)
			f(&q)
			return q.Compile()
		}
	}
	tests := []struct {
		name string
		p    func() *model.Protocol
		says string
	}{
		{"naive says its count guards its globals", flip(naive.Protocol, func(q *model.Protocol) { q.CountGuardsGlobals = true }),
			"protocol naive says CountGuardsGlobals, but its listing has no count increment and decrement"},
		{"global-lock says its count guards its globals", flip(swap.GlobalLock, func(q *model.Protocol) { q.CountGuardsGlobals = true }),
			"protocol global-lock says CountGuardsGlobals, but its listing has no count increment and decrement"},
		{"naive says a state entry guards its globals", flip(naive.Protocol, func(q *model.Protocol) { q.StateGuardsGlobals = true }),
			`protocol naive says StateGuardsGlobals, but its listing has no label "first"`},
		{"global-lock restores while another thread holds a reference", flip(swap.GlobalLock, func(q *model.Protocol) {
			for i := range q.Code {
				if q.Code[i].Line == 39 { // if refcount >= 1: taken as if it read "if refcount >= 2:"
					q.Code[i].Exec = func(c *model.Ctx) {
						if c.Tmp() < 2 {
							c.Jump("restore")
						}
					}
				}
			}
		}), "says StateGuardsGlobals, but its step at global_lock.py:45 writes the module's globals while its state entry counts another reference"},
		{"merged says it stores the dispatcher", flip(swap.Merged, func(q *model.Protocol) { q.StoresDispatchOverReal = true }),
			"says StoresDispatchOverReal, but its step at merged.py:30 stores fake#1 over numba.cuda"},
		{"global-lock says a zero count is a missing one", flip(swap.GlobalLock, func(q *model.Protocol) { q.ZeroCountIsMissing = true }),
			"says ZeroCountIsMissing, but its step at global_lock.py"},
		{"proposed says it does not dispatch", flip(swap.Proposed, func(q *model.Protocol) { q.Dispatches = false }),
			"says it does not dispatch (Dispatches false), but its step at proposed.py"},
		{"refcount-del deletes its lock without saying so", flip(swap.RefcountDel, func(q *model.Protocol) {
			for i := range q.Code {
				if q.Code[i].Object == model.LockRegistry && q.Code[i].Deletes {
					q.Code[i].Deletes = false
				}
			}
		}), "refcount_del.py:45 deletes a registry entry but does not say so (Instr.Deletes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, explorePanics(t, tt.p), tt.says)
		})
	}
	t.Run("the registered variants contradict none of theirs", func(t *testing.T) {
		for _, p := range []*model.Protocol{naive.Protocol, swap.GlobalLock, swap.RefcountUnregistered, swap.RefcountDel, swap.Merged, swap.Proposed} {
			require.Empty(t, explorePanics(t, func() *model.Protocol { return p }), p.Name)
		}
	})
	t.Run("KeepsLockEntries is read off the listing", func(t *testing.T) {
		require.True(t, swap.Merged.KeepsLockEntries())
		require.False(t, swap.RefcountDel.KeepsLockEntries())
		require.False(t, swap.RefcountUnregistered.KeepsLockEntries())
	})
}
