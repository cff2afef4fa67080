package check

import (
	"swapcheck/model"
	"swapcheck/variants"
)

// Protocols lists every modelled variant, in the order of the fix's
// history: the listings of the registry in package variants.
func Protocols() []*model.Protocol { return variants.Protocols() }

// Lookup finds a protocol by name in the registry of package variants.
func Lookup(name string) (*model.Protocol, error) {
	v, err := variants.Lookup(name)
	return v.Protocol, err
}
