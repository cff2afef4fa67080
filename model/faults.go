package model

// addFaultThread adds a fault's pseudo-thread, the last thread so far, of
// no launch, block or index, whose code is one statement of kind kind,
// and returns the thread and its code.
func (pr *Program) addFaultThread(name string, kind stmtKind, text string) (thread, codeIndex int) {
	thread = len(pr.threadLaunch)
	pr.threadLaunch = append(pr.threadLaunch, -1)
	pr.threadBlock = append(pr.threadBlock, -1)
	pr.threadIndex = append(pr.threadIndex, -1)
	pr.startText = append(pr.startText, "")
	codeIndex = len(pr.codes)
	pr.codes = append(pr.codes, code{name: name, stmts: []stmt{{kind: kind, text: text}}})
	return thread, codeIndex
}
