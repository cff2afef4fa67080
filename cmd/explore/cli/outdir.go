package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// outFiles are what -out writes.
var outFiles = []string{"trace.txt", "trace.json", htmlFile, "schedule.txt", "summary.json", reportFile, replayScript}

// prepareOut makes DIR and refuses to overwrite earlier results unless
// forced; forced, it checks that each earlier result it would replace can
// be written. It also writes a probe file there. So a directory the
// results cannot be written to is found before the search, not after it
// (when the verdict would be lost).
func prepareOut(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("-out: %v", unwrapPath(err))
	}
	for _, name := range outFiles {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if !force {
			return usagef("-out %s already holds %s; pass -force to overwrite, or pick another directory", dir, name)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return usagef("-out %s: -force cannot overwrite %s: %v", dir, name, unwrapPath(err))
		}
		f.Close()
	}
	probe, err := os.CreateTemp(dir, ".explore-probe-*")
	if err == nil {
		_, err = probe.WriteString("probe\n")
		if cerr := probe.Close(); err == nil {
			err = cerr
		}
		if rerr := os.Remove(probe.Name()); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return usagef("-out %s: cannot write there: %v", dir, unwrapPath(err))
	}
	return nil
}

// stagedOut is one run's -out files, written first into a directory of
// their own inside DIR and moved into DIR together once all are written:
// a run that fails to write one leaves DIR as it was, and a forced run
// leaves no file of an earlier run beside its own (an earlier violation's
// report.md beside a verified trace, say).
type stagedOut struct {
	dir, tmp string
}

// stageOut starts writing a run's files for dir.
func stageOut(dir string) (*stagedOut, error) {
	tmp, err := os.MkdirTemp(dir, ".explore-out-*")
	if err != nil {
		return nil, fmt.Errorf("-out %s: %v", dir, unwrapPath(err))
	}
	return &stagedOut{dir: dir, tmp: tmp}, nil
}

// write creates the staged file name and fills it.
func (s *stagedOut) write(name string, fill func(io.Writer) error) error {
	return writeFile(s.tmp, name, fill)
}

// path is where the staged file name is written.
func (s *stagedOut) path(name string) string { return filepath.Join(s.tmp, name) }

// commit moves the staged files into DIR and removes the files of
// outFiles that this run did not write.
func (s *stagedOut) commit() error {
	defer s.abort()
	for _, name := range outFiles {
		dst := filepath.Join(s.dir, name)
		err := os.Rename(s.path(name), dst)
		if errors.Is(err, os.ErrNotExist) {
			err = os.Remove(dst)
			if errors.Is(err, os.ErrNotExist) {
				err = nil
			}
		}
		if err != nil {
			return fmt.Errorf("-out %s: %v", s.dir, unwrapPath(err))
		}
	}
	return nil
}

// abort removes what is staged (nothing, after commit).
func (s *stagedOut) abort() { os.RemoveAll(s.tmp) }
