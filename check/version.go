package check

import "fmt"

// Version is the tool's version: what explore -version prints and what
// summary.json, trace.json and schedule.txt record as the writer. It is the one place
// the version is spelled.
const Version = "0.1.0"

// FormatVersion is the layout of schedule.txt, trace.json and summary.json. A reader
// refuses a file of another format with one line naming both, rather than
// misreading it. A file without a format field was written before the
// field existed; its layout is exactly format 1 (the field is the only
// thing format 1 adds), so it is read as format 1. Bump FormatVersion when
// a field changes meaning or a directive is added that older readers
// would refuse; a new summary field that readers may ignore is not a new
// format. Format 2 added the violation classes (Harm): "verified" means
// no harmful violation, and schedule.txt says which violations ended the
// search ("violations harmful" or "all"). A format 1 file is still read:
// every violation ended a search then, so it replays with ScopeAll.
const FormatVersion = 2

// checkFormat refuses a file of a format this tool does not read. what
// names the file ("schedule", "trace", "summary"); format 0 is a file written
// before the field existed (format 1).
func checkFormat(what string, format int, writer string) error {
	if format == 0 || format == 1 || format == FormatVersion {
		return nil
	}
	by := "another version"
	if writer != "" {
		by = "explore " + writer
	}
	return fmt.Errorf("the %s is of format %d (written by %s), but explore %s reads formats 1 and %d", what, format, by, Version, FormatVersion)
}

// formatScope is the scope a file of format (0: before the field existed)
// that names none was searched with: every violation ended a search
// before format 2, only harmful ones by default since.
func formatScope(format int) Scope {
	if format <= 1 {
		return ScopeAll
	}
	return ScopeHarmful
}
