package variants_test

import (
	"swapcheck/variants"
)

// protocols are the listings the tests check: the registry's, every one.
var protocols = variants.Protocols()
