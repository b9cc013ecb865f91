package collective

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// A store's secret (the job's), as DESIGN.md's Security decisions say:
// HIPGO_COLLECTIVE_SECRET or the file HIPGO_COLLECTIVE_SECRET_FILE names,
// set by a job script for every rank; on one host (a loopback store
// address) without it, a 0600 file under the user's runtime directory
// that the serving rank writes and the others read; across hosts without
// it, an error. HIPGO_COLLECTIVE_INSECURE=1 opts out.

const minSecret = 16 // bytes a job's secret has at least

// insecureSecret is the key of an opted-out store: anyone can compute it.
var insecureSecret = []byte("hipgo collective: no secret (HIPGO_COLLECTIVE_INSECURE=1)")

var warnInsecure sync.Once

// jobSecret is how a store at addr gets its secret. fromFile is set when
// it came from the runtime directory, where the serving rank may not have
// written it yet (or an older job's is still there): clients read it again
// until it works.
type jobSecret struct {
	env      []byte // the secret, when set by the environment
	file     string // the runtime directory's file, otherwise
	insecure bool
}

func secretFor(op, addr string) (jobSecret, error) {
	if v := os.Getenv("HIPGO_COLLECTIVE_SECRET"); v != "" {
		if len(v) < minSecret {
			return jobSecret{}, argErr(op, "HIPGO_COLLECTIVE_SECRET has %d bytes: it needs at least %d (for example `openssl rand -hex 32`)", len(v), minSecret)
		}
		return jobSecret{env: []byte(v)}, nil
	}
	if name := os.Getenv("HIPGO_COLLECTIVE_SECRET_FILE"); name != "" {
		b, err := readSecretFile(name)
		if err != nil {
			return jobSecret{}, argErr(op, "HIPGO_COLLECTIVE_SECRET_FILE: %v", err)
		}
		return jobSecret{env: b}, nil
	}
	if os.Getenv("HIPGO_COLLECTIVE_INSECURE") == "1" {
		warnInsecure.Do(func() {
			fmt.Fprintln(os.Stderr, "hipgo: HIPGO_COLLECTIVE_INSECURE=1: collective stores accept any client that can connect")
		})
		return jobSecret{env: insecureSecret, insecure: true}, nil
	}
	host, _, _ := net.SplitHostPort(addr)
	if !isLoopback(host) {
		return jobSecret{}, argErr(op, "the store at %s is reachable from other hosts and no secret is set: "+
			"set HIPGO_COLLECTIVE_SECRET (the same for every rank, for example `openssl rand -hex 32` in the job script) "+
			"or HIPGO_COLLECTIVE_SECRET_FILE, or HIPGO_COLLECTIVE_INSECURE=1 to accept any client", addr)
	}
	dir, err := runtimeDir()
	if err != nil {
		return jobSecret{}, argErr(op, "no secret set and no private runtime directory for one: %v", err)
	}
	sum := sha256.Sum256([]byte(addr))
	return jobSecret{file: filepath.Join(dir, "collective-"+hex.EncodeToString(sum[:8]))}, nil
}

// get returns the secret; a serving rank whose secret comes from the
// runtime directory writes a new one there.
func (j jobSecret) get(serve bool) ([]byte, error) {
	if j.file == "" {
		return j.env, nil
	}
	if serve {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		b = []byte(hex.EncodeToString(b))
		tmp, err := os.CreateTemp(filepath.Dir(j.file), ".secret-*")
		if err != nil {
			return nil, err
		}
		_, err = tmp.Write(b)
		err = errors.Join(err, tmp.Chmod(0o600), tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), j.file)
		}
		if err != nil {
			_ = os.Remove(tmp.Name())
			return nil, err
		}
		return b, nil
	}
	return readSecretFile(j.file)
}

// remove deletes the runtime directory's file if it still holds secret.
func (j jobSecret) remove(secret []byte) {
	if j.file == "" {
		return
	}
	if b, err := readSecretFile(j.file); err == nil && bytes.Equal(b, secret) {
		_ = os.Remove(j.file)
	}
}

// readSecretFile reads a secret file: a regular file, not a link, of a
// few bytes, the user's own, that only the user may read.
func readSecretFile(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if err := ownSecretFile(name, st); err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s may be read by others (mode %v): chmod 600 it", name, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 4097))
	if err != nil {
		return nil, err
	}
	if len(b) > 4096 {
		return nil, fmt.Errorf("%s is longer than 4096 bytes", name)
	}
	b = bytes.TrimSpace(b)
	if len(b) < minSecret {
		return nil, fmt.Errorf("%s holds %d bytes: a secret has at least %d", name, len(b), minSecret)
	}
	return b, nil
}

// ownSecretFile refuses a secret file another user owns: that user chose
// the secret, and could read it whatever its mode.
func ownSecretFile(name string, st fs.FileInfo) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", name, sys.Uid, os.Geteuid())
	}
	return nil
}

// runtimeDir is a directory only this user can enter: XDG_RUNTIME_DIR's
// hipgo, else hipgo-UID under os.TempDir, made 0700 and checked to be
// this user's and no one else's.
func runtimeDir() (string, error) {
	dir := filepath.Join(os.TempDir(), "hipgo-"+strconv.Itoa(os.Getuid()))
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "hipgo")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Getuid() || st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is not a directory that only this user (uid %d) can use", dir, os.Getuid())
	}
	return dir, nil
}

// isLoopback reports whether host names this machine's loopback
// ("localhost" included).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
