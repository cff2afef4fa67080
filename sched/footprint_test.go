package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"swapcheck/sched"
)

// TestFootprintDependent: two steps are dependent when they touch one
// object and one writes, when one watches the other's group, or when
// either is marked All (it changes which threads can run at all).
func TestFootprintDependent(t *testing.T) {
	read := func(o int) sched.Footprint { return sched.Footprint{Object: o, Access: sched.Read} }
	write := func(o int) sched.Footprint { return sched.Footprint{Object: o, Access: sched.Write} }
	local := sched.Footprint{Access: sched.Local}
	all := func(f sched.Footprint) sched.Footprint { f.All = true; return f }
	tests := []struct {
		name string
		f, g sched.Footprint
		want bool
	}{
		{"two reads", read(1), read(1), false},
		{"read and write", read(1), write(1), true},
		{"other objects", write(1), write(2), false},
		{"local", local, write(1), false},
		{"member and watcher", sched.Footprint{Access: sched.Local, Group: 1}, sched.Footprint{Access: sched.Local, Group: 1, Watches: true}, true},
		{"two members", sched.Footprint{Access: sched.Local, Group: 1}, sched.Footprint{Access: sched.Local, Group: 1}, false},
		{"all and a local step", all(local), local, true},
		{"a read and all", read(1), all(read(2)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.f.Dependent(tt.g))
			require.Equal(t, tt.want, tt.g.Dependent(tt.f), "symmetric")
		})
	}
}
