package check

import (
	"fmt"
	"strings"

	"swapcheck/model"
	"swapcheck/naive"
	"swapcheck/swap"
)

// Protocols lists every modelled variant, in the order of the fix's history.
func Protocols() []*model.Protocol {
	return []*model.Protocol{naive.Protocol, swap.GlobalLock, swap.RefcountUnregistered, swap.RefcountDel, swap.Merged}
}

// Lookup finds a protocol by name.
func Lookup(name string) (*model.Protocol, error) {
	var names []string
	for _, p := range Protocols() {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("unknown protocol %q (want one of %s)", name, strings.Join(names, ", "))
}
