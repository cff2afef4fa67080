package pysource

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// The probe cache keeps what each candidate answered when it was run, so
// that a search for interpreters runs only the candidates that changed.
// Running every candidate is what finding costs: a pyenv shim is a shell
// script that takes 0.7 s to start its Python, and 1.4 s to answer
// "command not found" for a version that is not selected, so with pyenv's
// shims on PATH running them all takes 1.7 s, where a search takes
// milliseconds (docs/source.md, "Finding the interpreter").
//
// An answer is kept under a fingerprint of everything it depends on: the
// candidate's path, the file it resolves to and that file's size, mode
// and modification time; and for a wrapper (a shim, or any program that
// picks a Python by what surrounds it), the environment it runs in, the
// working directory, the home directory, every version file of pyenv's, asdf's and mise's
// from there up to the root and pyenv's global version file and
// installed versions. What a fingerprint misses
// is caught when the interpreter runs for real: the helper that compiles
// the file says which Python it is (Load), a mismatch is an
// *StaleInterpreterError, and Open probes every candidate again.
//
// A timed-out run is not kept (it may answer next time); a run that
// failed (a shim's "command not found") is. The cache is a JSON file
// (Env.Cache; OSEnv puts it in the user's cache directory), replaced
// whole by a rename, so that two runs at once lose an answer at worst;
// an unreadable file is an empty cache.

// cacheVersion is the cache file's format; a file of another is ignored.
const cacheVersion = 1

// cacheMost is how many answers the file keeps, the most recently used.
const cacheMost = 256

// probeEntry is one kept answer: a candidate's (Interpreter, or Error
// for a run that failed), or pyenv's to `pyenv root` (Root, under
// rootKey).
type probeEntry struct {
	Path        string      `json:"path"`
	Real        string      `json:"real"`
	Interpreter *interpJSON `json:"interpreter,omitempty"`
	Error       string      `json:"error,omitempty"`
	Root        string      `json:"root,omitempty"`
	Used        int64       `json:"used"` // Unix seconds, for cacheMost
}

type probeCache struct {
	file    string
	mu      sync.Mutex
	entries map[string]probeEntry
	changed bool
}

// openCache reads the cache file; nil where there is none to keep
// (file "").
func openCache(file string) *probeCache {
	if file == "" {
		return nil
	}
	c := &probeCache{file: file, entries: map[string]probeEntry{}}
	var f cacheFile
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &f) == nil && f.Version == cacheVersion && f.Probes != nil {
		c.entries = f.Probes
	}
	return c
}

// cacheFile is the file's JSON.
type cacheFile struct {
	Version int                   `json:"version"`
	Probes  map[string]probeEntry `json:"probes"`
}

// rootKey is the key of `pyenv root`'s answer, and the file pyenv
// resolves to: pyenv is a script, so its fingerprint covers the home
// directory it defaults to (it answers $PYENV_ROOT, which is unset when
// it is asked, else ~/.pyenv); "root" keeps it apart from a candidate's.
func rootKey(env Env, pyenv string) (key, real string) {
	key, real = fingerprint(env, pyenv)
	if key == "" {
		return "", ""
	}
	return "root " + key, real
}

// lookup returns the kept answer under key.
func (c *probeCache) lookup(key string) (probeEntry, bool) {
	if c == nil || key == "" {
		return probeEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok {
		e.Used = time.Now().Unix()
		c.entries[key] = e
		c.changed = true
	}
	return e, ok
}

// store keeps an answer under key.
func (c *probeCache) store(key string, e probeEntry) {
	if c == nil || key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Used = time.Now().Unix()
	c.entries[key] = e
	c.changed = true
}

// save writes the file when anything changed, dropping the answers of
// candidates that are gone (a test's temporary PATH) and all but the cacheMost most recently used. A
// cache that cannot be written is no cache: nothing is said.
func (c *probeCache) save() {
	if c == nil || !c.changed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.entries))
	for k, e := range c.entries {
		if !exists(e.Path) || !exists(e.Real) {
			delete(c.entries, k)
			continue
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := c.entries[keys[i]], c.entries[keys[j]]
		if a.Used != b.Used {
			return a.Used > b.Used
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[min(len(keys), cacheMost):] {
		delete(c.entries, k)
	}
	b, err := json.MarshalIndent(cacheFile{cacheVersion, c.entries}, "", " ")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".probes-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.file) != nil {
		os.Remove(tmp.Name())
	}
}

// fingerprint is the key of path's answer in env (see the comment at the
// top), and the file path resolves to; "" where path cannot be resolved
// (then it is run, and its answer not kept).
func fingerprint(env Env, path string) (key, real string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", ""
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", ""
	}
	var b strings.Builder
	field := func(s string) { b.WriteString(s); b.WriteByte(0) }
	field(fmt.Sprint(cacheVersion))
	field(path)
	field(real)
	field(fmt.Sprintf("%d %d %v", st.Size(), st.ModTime().UnixNano(), st.Mode()))
	if wrapper(real) {
		stamp := func(f string) {
			if st, err := os.Stat(f); err == nil {
				field(fmt.Sprintf("%s %d %d", f, st.Size(), st.ModTime().UnixNano()))
			}
		}
		wd, _ := os.Getwd()
		field("cwd " + wd)
		field("home " + env.Home)
		vars := childEnv(env)
		vars = slices.DeleteFunc(vars, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return name == "OLDPWD" || name == "PWD" || name == "SHLVL" || name == "_"
		})
		sort.Strings(vars)
		for _, kv := range vars {
			field(kv)
		}
		for dir := wd; dir != ""; {
			for _, name := range versionFiles {
				stamp(filepath.Join(dir, name))
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		// pyenv's roots: the environment's, the default, the shim's own
		roots := []string{env.PyenvRoot}
		if env.Home != "" {
			roots = append(roots, filepath.Join(env.Home, ".pyenv"))
		}
		if filepath.Base(filepath.Dir(real)) == "shims" {
			roots = append(roots, filepath.Dir(filepath.Dir(real)))
		}
		for _, root := range roots {
			if root == "" {
				continue
			}
			stamp(filepath.Join(root, "version"))
			if des, err := os.ReadDir(filepath.Join(root, "versions")); err == nil {
				for _, de := range des {
					field("version " + root + " " + de.Name())
				}
			}
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:]), real
}

// versionFiles are the files, in the working directory or above it, by
// which pyenv, asdf and mise pick a Python.
var versionFiles = []string{".python-version", ".tool-versions", ".mise.toml", "mise.toml"}

// wrapper reports whether file picks the Python it runs by what surrounds
// it: a script (a pyenv or asdf shim), or a program not named python*
// (mise's shims are links to mise itself).
func wrapper(file string) bool {
	return isScript(file) || !strings.HasPrefix(filepath.Base(file), "python")
}

// isScript reports whether file starts with "#!".
func isScript(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}

// probeKept is Probe through the cache: the kept answer where the
// fingerprint matches, else a run, whose answer is kept unless it timed
// out.
func probeKept(env Env, c *probeCache, path string) (Interpreter, error) {
	key, real := "", ""
	if c != nil {
		key, real = fingerprint(env, path)
	}
	if !env.refresh {
		if e, ok := c.lookup(key); ok {
			if e.Interpreter != nil {
				return e.Interpreter.interp(path), nil
			}
			return Interpreter{}, &NotPythonError{Path: path, Reason: e.Error}
		}
	}
	in, err := Probe(env, path)
	switch np, _ := err.(*NotPythonError); {
	case err == nil:
		j := in.json()
		c.store(key, probeEntry{Path: path, Real: real, Interpreter: &j})
	case np != nil && !np.transient:
		c.store(key, probeEntry{Path: path, Real: real, Error: np.Reason})
	}
	return in, err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
