package cli

import (
	"flag"

	"swapcheck/check"
)

func registerHarmFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.afterFailure, "after-failure", false, "report after-failure violations too (a thread of a launch that has already failed sees a wrong module, which hurts nobody); by default a search looks for harmful ones and steps past these")
}

// scope is the violations a search given o looks for.
func scope(o *options) check.Scope {
	if o.afterFailure {
		return check.ScopeAll
	}
	return check.ScopeHarmful
}
