package cli

import (
	"swapcheck/check"
)

// scope is the violations a search given o looks for.
func scope(o *options) check.Scope {
	if o.afterFailure {
		return check.ScopeAll
	}
	return check.ScopeHarmful
}
