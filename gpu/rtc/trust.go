package rtc

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// KeyFileEnv names the variable that moves the cache's MAC key file
// (default os.UserConfigDir()/hipgo/rtc-cache.key).
const KeyFileEnv = "HIPGO_RTC_KEY_FILE"

// macKeySize is the length of the per-user key that authenticates entries.
const macKeySize = 32

// keyFile is where the MAC key lives: outside the cache directory, so
// that a process that can write the cache cannot choose the key.
func keyFile() (string, error) {
	if p := os.Getenv(KeyFileEnv); p != "" {
		return p, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the cache's key (set %s): %w", KeyFileEnv, err)
	}
	return filepath.Join(base, "hipgo", "rtc-cache.key"), nil
}

// macKeys holds the keys read in this process, by file: a key checked
// once is not read again for every compile.
var macKeys struct {
	sync.Mutex
	byPath map[string][]byte
}

// macKey returns the user's MAC key from path, creating it on first use.
// A key file that others could read or have written is refused, and so
// is the cache with it.
func macKey(path string) ([]byte, error) {
	macKeys.Lock()
	defer macKeys.Unlock()
	if k, ok := macKeys.byPath[path]; ok {
		return k, nil
	}
	k, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err = createKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cache key %s: %w", path, err)
	}
	if macKeys.byPath == nil {
		macKeys.byPath = map[string][]byte{}
	}
	macKeys.byPath[path] = k
	return k, nil
}

func readKey(path string) ([]byte, error) {
	if err := checkDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkOwner(st, 0o077); err != nil {
		return nil, err
	}
	if st.Size() != macKeySize {
		return nil, fmt.Errorf("%d bytes, want %d", st.Size(), macKeySize)
	}
	k := make([]byte, macKeySize)
	if _, err := io.ReadFull(f, k); err != nil {
		return nil, err
	}
	return k, nil
}

// createKey writes a new key beside path and links it into place, so a
// process racing this one reads a whole key, the same one, or none.
func createKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".tmp-key-*") // 0600
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	k := make([]byte, macKeySize)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	_, err = f.Write(k)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(path) // another process made it first
		}
		return nil, err
	}
	return k, nil
}

// openRegular opens path for reading without following a symbolic link
// or blocking on a FIFO or device, and returns it only if it is a regular
// file.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = errors.New("a symbolic link")
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// checkOwner refuses a file the user does not own or whose mode has any
// of the bits in deny.
func checkOwner(st fs.FileInfo, deny fs.FileMode) error {
	if s, ok := st.Sys().(*syscall.Stat_t); ok && int(s.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not %d", s.Uid, os.Geteuid())
	}
	if m := st.Mode().Perm() & deny; m != 0 {
		return fmt.Errorf("mode %v lets others in", st.Mode().Perm())
	}
	return nil
}

// checkDir refuses a directory that another user owns or that the group
// or others may write: they could put entries (or a key) there.
func checkDir(dir string) error {
	st, err := os.Stat(dir) // a link the user made to a cache elsewhere is fine
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	if err := checkOwner(st, 0o022); err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	return nil
}

// mkdirPrivate makes dir and its missing parents 0700, then checks each
// one it made: another user may have made it first, between the look and
// the mkdir.
func mkdirPrivate(dir string) error {
	dir = filepath.Clean(dir)
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		st, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s: not a directory (%v)", d, st.Mode().Type())
		}
		if err := checkOwner(st, 0o022); err != nil {
			return fmt.Errorf("directory %s: %w", d, err)
		}
	}
	return checkDir(dir)
}

// within reports whether path lies in dir, by their names or by where
// they lead: a symbolic link on either path (a linked directory that
// resolves into the cache) does not hide one inside the other.
func within(path, dir string) bool {
	if lexicallyWithin(path, dir) {
		return true
	}
	return lexicallyWithin(resolved(path), resolved(dir))
}

func lexicallyWithin(path, dir string) bool {
	path, err1 := filepath.Abs(path)
	dir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is p with the symbolic links of its longest existing prefix
// resolved (the rest may not exist yet).
func resolved(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for d := p; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(d) == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
