package rtc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/internal/debug"
)

// testKey is a cache key as req.key makes them.
var testKey = strings.Repeat("5e", 32)

// genuine is the program the fake compiler makes; forged is the
// attacker's.
var (
	genuine = &Program{Target: gfx, Compiler: "hiprtc 7.0", Image: []byte("\x7fELF genuine code object"), Lowered: map[string]string{"scale<float>": "_Z5scaleIfEvPT_S0_i"}}
	forged  = &Program{Target: gfx, Compiler: "hiprtc 7.0", Image: []byte("\x7fELF attacker's code object"), Lowered: map[string]string{"scale<float>": "attacker"}}
)

// fakeCompile stands in for a compiler: it counts its calls and makes
// genuine.
type fakeCompile struct{ n int }

func (f *fakeCompile) compile() (*Program, error) {
	f.n++
	p := *genuine
	return &p, nil
}

// refused reads c's entry for testKey, which must not check out, and
// says why.
func refused(t *testing.T, c *cache) error {
	t.Helper()
	p, err := c.read(testKey)
	assert.Nil(t, p)
	require.Error(t, err)
	return err
}

// recompiles runs cached on dir, which must compile, once, and return
// the genuine program.
func recompiles(t *testing.T, dir string) {
	t.Helper()
	var fc fakeCompile
	p, err := cached(dir, testKey, fc.compile)
	require.NoError(t, err)
	assert.Equal(t, 1, fc.n)
	assert.False(t, p.Cached)
	assert.Equal(t, genuine.Image, p.Image)
	assert.Equal(t, genuine.Lowered, p.Lowered)
}

// newCache is a cache of t's own under a key of its own.
func newCache(t *testing.T) *cache {
	t.Helper()
	privateKey(t)
	c, err := openCache(filepath.Join(t.TempDir(), "rtc"))
	require.NoError(t, err)
	return c
}

// v2Entry is an entry in the layout before the MAC: the header's SHA-256
// is all that vouched for the image, and anyone can compute it.
func v2Entry(t testing.TB, key string, p *Program) []byte {
	sum := sha256.Sum256(p.Image)
	line, err := json.Marshal(map[string]any{"key": key, "target": p.Target, "compiler": p.Compiler, "lowered": p.Lowered, "size": len(p.Image), "sha256": hex.EncodeToString(sum[:])})
	require.NoError(t, err)
	return append([]byte("hipgo-rtc 2\n"+string(line)+"\n"), p.Image...)
}

// An entry rewritten by someone without the user's key is not the
// program: whatever its checksums say, it is compiled again, the
// attacker's image and symbols never come back, and the entry is
// replaced by the genuine one.
func TestCacheSwappedEntry(t *testing.T) {
	c := newCache(t)
	path := entryPath(c.dir, testKey)
	other := &cache{dir: c.dir, mac: bytes.Repeat([]byte{7}, macKeySize)} // the attacker's own key
	otherKey := strings.Repeat("0d", 32)

	withOtherKey, err := other.encode(testKey, forged)
	require.NoError(t, err)
	// The attacker's header and image under the layout's magic, ending
	// with the image's SHA-256 where the MAC goes.
	plain, err := other.encode(testKey, forged)
	require.NoError(t, err)
	sum := sha256.Sum256(plain[:len(plain)-sha256.Size])
	copy(plain[len(plain)-sha256.Size:], sum[:])
	// A genuine entry of another program, moved to this one's name.
	require.NoError(t, c.write(otherKey, forged))
	moved, err := os.ReadFile(entryPath(c.dir, otherKey))
	require.NoError(t, err)
	// The same with its header's key edited to this one's.
	edited := bytes.Replace(moved, []byte(otherKey), []byte(testKey), 1)

	for name, b := range map[string][]byte{
		"sha256 entry (v2)": v2Entry(t, testKey, forged),
		"other user's key":  withOtherKey,
		"sha256 for mac":    plain,
		"moved":             moved,
		"header edited":     edited,
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, c.write(testKey, genuine))
			require.NoError(t, os.WriteFile(path, b, 0o600))
			refused(t, c)
			recompiles(t, c.dir)
			p, err := c.read(testKey)
			require.NoError(t, err)
			require.NotNil(t, p, "the entry was replaced")
			assert.True(t, p.Cached)
			assert.Equal(t, genuine.Image, p.Image)
		})
	}
}

// What the user's hipgo wrote comes back whole, and only under its key.
func TestCacheRoundTrip(t *testing.T) {
	c := newCache(t)
	require.NoError(t, c.write(testKey, genuine))
	p, err := c.read(testKey)
	require.NoError(t, err)
	require.NotNil(t, p)
	assert.True(t, p.Cached)
	assert.Equal(t, genuine.Image, p.Image)
	assert.Equal(t, genuine.Lowered, p.Lowered)
	assert.Equal(t, genuine.Target, p.Target)
	assert.Equal(t, genuine.Compiler, p.Compiler)

	p, err = c.read(strings.Repeat("00", 32))
	assert.NoError(t, err, "no entry is a miss, not an error")
	assert.Nil(t, p)
}

// A cache directory others may write, or that another user owns, is not
// used: the program is compiled every time, nothing is written there, and
// a warning says why.
func TestCacheDirRefused(t *testing.T) {
	privateKey(t)
	var log bytes.Buffer
	t.Cleanup(func() { debug.SetOutput(nil); debug.ReadEnv() })
	t.Setenv("AMD_LOG_LEVEL", "2")
	debug.ReadEnv()
	debug.SetOutput(&log)

	for name, mode := range map[string]fs.FileMode{"world-writable": 0o777, "group-writable": 0o770, "sticky world-writable": 0o777 | fs.ModeSticky} {
		t.Run(name, func(t *testing.T) {
			log.Reset()
			dir := filepath.Join(t.TempDir(), "rtc")
			require.NoError(t, os.Mkdir(dir, 0o700))
			require.NoError(t, os.Chmod(dir, mode))
			_, err := openCache(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "lets others in")

			var fc fakeCompile
			for range 2 {
				p, err := cached(dir, testKey, fc.compile)
				require.NoError(t, err)
				assert.False(t, p.Cached)
				assert.Equal(t, genuine.Image, p.Image)
			}
			assert.Equal(t, 2, fc.n)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries)
			assert.Contains(t, log.String(), ":2:hipgo: rtc: cache not used dir="+dir+" ")
		})
	}
}

// statOf is a FileInfo of a given owner and mode.
type statOf struct {
	fs.FileInfo
	uid  uint32
	mode fs.FileMode
}

func (s statOf) Mode() fs.FileMode { return s.mode }
func (s statOf) Sys() any          { return &syscall.Stat_t{Uid: s.uid} }

// Another user's file or directory is refused, whatever its mode.
func TestCheckOwner(t *testing.T) {
	me := uint32(os.Geteuid())
	assert.NoError(t, checkOwner(statOf{uid: me, mode: fs.ModeDir | 0o755}, 0o022))
	assert.NoError(t, checkOwner(statOf{uid: me, mode: 0o600}, 0o077))
	err := checkOwner(statOf{uid: me + 1, mode: fs.ModeDir | 0o700}, 0o022)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "owned by uid")
	assert.Error(t, checkOwner(statOf{uid: me, mode: 0o640}, 0o077))
	assert.Error(t, checkOwner(statOf{uid: me, mode: fs.ModeDir | 0o757}, 0o022))
}

// The cache makes its directories 0700 and its files 0600; the key lives
// outside it, under the user's config directory, 0600 in a 0700
// directory.
func TestCacheModes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv(KeyFileEnv, "")
	config, err := os.UserConfigDir()
	require.NoError(t, err)
	kf, err := keyFile()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(config, "hipgo", "rtc-cache.key"), kf)

	dir := filepath.Join(home, "cache", "hipgo", "rtc")
	c, err := openCache(dir)
	require.NoError(t, err)
	require.NoError(t, c.write(testKey, genuine))
	for _, d := range []string{filepath.Join(home, "cache"), filepath.Join(home, "cache", "hipgo"), dir, filepath.Dir(kf)} {
		st, err := os.Lstat(d)
		require.NoError(t, err)
		assert.Equal(t, fs.ModeDir|0o700, st.Mode(), d)
	}
	for _, f := range []string{entryPath(dir, testKey), kf} {
		st, err := os.Lstat(f)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), st.Mode(), f)
	}
	assert.False(t, within(kf, dir))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the entry: no key, no temporary file in the cache")
	assert.Equal(t, testKey+".bin", entries[0].Name())
}

// A key file inside the cache directory is refused: a writer of the
// cache could choose the key.
func TestKeyFileInCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rtc")
	t.Setenv(KeyFileEnv, filepath.Join(dir, "sub", "key"))
	_, err := openCache(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lies in the cache directory")
	recompiles(t, dir)
	_, err = os.Stat(filepath.Join(dir, "sub", "key"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// A key file reached through a symbolic link to a directory that
// resolves into the cache directory is refused as one inside it is.
func TestKeyFileInCacheThroughLink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "rtc")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Symlink(dir, filepath.Join(base, "link")))
	t.Setenv(KeyFileEnv, filepath.Join(base, "link", "sub", "key"))
	_, err := openCache(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lies in the cache directory")
	_, err = os.Stat(filepath.Join(dir, "sub", "key"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// And the cache reached through a link, the key beside it: refused too.
	t.Setenv(KeyFileEnv, filepath.Join(dir, "key2"))
	_, err = openCache(filepath.Join(base, "link"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lies in the cache directory")
}

// A key file is trusted only as a regular file of the user's, 0600 (or
// tighter) in a directory others cannot write, of the right size;
// otherwise the cache is not used.
func TestKeyFileRefused(t *testing.T) {
	good := bytes.Repeat([]byte{1}, macKeySize)
	for name, prepare := range map[string]func(t *testing.T, path string){
		"readable by others": func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good, 0o600))
			require.NoError(t, os.Chmod(path, 0o644))
		},
		"writable by the group": func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good, 0o600))
			require.NoError(t, os.Chmod(path, 0o620))
		},
		"symbolic link": func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "target")
			require.NoError(t, os.WriteFile(target, good, 0o600))
			require.NoError(t, os.Symlink(target, path))
		},
		"short": func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good[:16], 0o600))
		},
		"fifo": func(t *testing.T, path string) {
			require.NoError(t, syscall.Mkfifo(path, 0o600))
		},
		"directory": func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o700))
		},
		"in a world-writable directory": func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, good, 0o600))
			require.NoError(t, os.Chmod(filepath.Dir(path), 0o777))
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "keys", "key")
			require.NoError(t, os.Mkdir(filepath.Dir(path), 0o700))
			prepare(t, path)
			t.Setenv(KeyFileEnv, path)
			done := make(chan error, 1)
			go func() { _, err := openCache(filepath.Join(t.TempDir(), "rtc")); done <- err }()
			select {
			case err := <-done:
				assert.Error(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("opening the key blocked")
			}
		})
	}
}

// Processes and goroutines creating the key at once all get the same one.
func TestKeyCreateRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hipgo", "key")
	keys := make([][]byte, 8)
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = createKey(path) })
	}
	wg.Wait()
	for i := range keys {
		require.NoError(t, errs[i])
		assert.Equal(t, keys[0], keys[i])
	}
	assert.Len(t, keys[0], macKeySize)
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
}

// An entry that is a symbolic link is refused, even to a genuine entry.
func TestCacheEntrySymlink(t *testing.T) {
	c := newCache(t)
	require.NoError(t, c.write(testKey, genuine))
	elsewhere := filepath.Join(t.TempDir(), "entry")
	require.NoError(t, os.Rename(entryPath(c.dir, testKey), elsewhere))
	for _, target := range []string{elsewhere, "/dev/zero"} {
		require.NoError(t, os.Symlink(target, entryPath(c.dir, testKey)))
		assert.Contains(t, refused(t, c).Error(), "symbolic link", target)
		recompiles(t, c.dir)
		st, err := os.Lstat(entryPath(c.dir, testKey))
		require.NoError(t, err)
		assert.True(t, st.Mode().IsRegular(), "the link is replaced by an entry")
		require.NoError(t, os.Remove(entryPath(c.dir, testKey)))
	}
}

// A FIFO in place of an entry is refused at once: the open does not wait
// for a writer.
func TestCacheEntryFIFO(t *testing.T) {
	c := newCache(t)
	path := entryPath(c.dir, testKey)
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	done := make(chan error, 1)
	go func() { _, err := c.read(testKey); done <- err }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a regular file")
	case <-time.After(10 * time.Second):
		// Let the blocked reader go before failing.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("reading a FIFO entry blocked")
	}
	recompiles(t, c.dir)
	p, err := c.read(testKey)
	require.NoError(t, err)
	require.NotNil(t, p, "the FIFO is replaced by an entry")
}

// A directory in place of an entry is a miss, and the compile still
// succeeds, though the entry cannot be written.
func TestCacheEntryDirectory(t *testing.T) {
	c := newCache(t)
	require.NoError(t, os.Mkdir(entryPath(c.dir, testKey), 0o700))
	refused(t, c)
	recompiles(t, c.dir)
}

// An entry over maxEntrySize is refused before it is read: the check
// allocates nothing near its size.
func TestCacheEntryOversized(t *testing.T) {
	c := newCache(t)
	f, err := os.Create(entryPath(c.dir, testKey))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxEntrySize+1)) // sparse: no disk used
	require.NoError(t, f.Close())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = refused(t, c)
	runtime.ReadMemStats(&after)
	assert.Contains(t, err.Error(), "over the cap")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
	recompiles(t, c.dir)
	st, err := os.Stat(entryPath(c.dir, testKey))
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(1<<20), "the entry is replaced")
}

// Damaged entries are misses with a reason, never a panic.
func TestCacheEntryDamaged(t *testing.T) {
	c := newCache(t)
	good, err := c.encode(testKey, genuine)
	require.NoError(t, err)
	flip := bytes.Clone(good)
	flip[len(entryMagic)+5] ^= 1
	for name, b := range map[string][]byte{
		"empty":        {},
		"magic only":   []byte(entryMagic),
		"truncated":    good[:len(good)-1],
		"flipped":      flip,
		"appended":     append(bytes.Clone(good), 0),
		"another file": []byte("\x7fELF not an entry"),
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(entryPath(c.dir, testKey), b, 0o600))
			refused(t, c)
		})
	}
}

// FuzzCacheEntry feeds the entry parser bytes from a writer without the
// key, and bytes authenticated with it (a writer who has the key, or a
// bug in encode): it never panics, and what it accepts is whole.
func FuzzCacheEntry(f *testing.F) {
	c := &cache{mac: bytes.Repeat([]byte{0x42}, macKeySize)}
	good, err := c.encode(testKey, genuine)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, false)
	f.Add(good[:len(good)-sha256.Size], true)
	f.Add([]byte(entryMagic+`{"key":"`+testKey+`","size":1}`+"\nx"), true)
	f.Add([]byte(entryMagic+`{"key":"`+testKey+`","size":-1,"lowered":{"a":1}}`+"\n"), true)
	f.Add(v2Entry(f, testKey, genuine), false)
	f.Fuzz(func(t *testing.T, b []byte, sign bool) {
		if sign {
			b = append(bytes.Clone(b), c.sum(testKey, b)...)
		}
		p, err := c.parse(testKey, b)
		if err != nil {
			if p != nil {
				t.Fatalf("a program with error %v", err)
			}
			return
		}
		if !p.Cached || len(p.Image) == 0 || len(p.Image) >= len(b) {
			t.Fatalf("accepted %d bytes as %+v", len(b), p)
		}
		if !sign && !bytes.Equal(b, good) {
			t.Fatalf("accepted bytes not written with the key: %q", b)
		}
	})
}

// compilerTarget is a target whose compiler opens here: hipRTC's gfx90a,
// else NVRTC's sm_90. Without either, t skips unless HIPGO_REQUIRE lists
// hiprtc.
func compilerTarget(t *testing.T) string {
	t.Helper()
	if nvrtc.open() == nil && hiprtc.open() != nil {
		return "sm_90"
	}
	needHipRTC(t)
	return gfx
}

// Through the compiler: a world-writable cache directory costs a compile
// each time, not the compile, and an entry rewritten with valid-looking
// contents (the attacker's image, its SHA-256, this key) is compiled
// again, never returned.
func TestCompileUntrustedCache(t *testing.T) {
	target := compilerTarget(t)
	privateKey(t)
	opts := Options{NameExpressions: []string{"scale<float>"}, Headers: headers}

	opts.Cache = filepath.Join(t.TempDir(), "rtc")
	require.NoError(t, os.Mkdir(opts.Cache, 0o700))
	require.NoError(t, os.Chmod(opts.Cache, 0o777))
	for range 2 {
		assert.EqualValues(t, 1, compileCount(func() {
			p, err := CompileFor(target, source, opts)
			require.NoError(t, err)
			assert.False(t, p.Cached)
		}))
	}
	entries, err := os.ReadDir(opts.Cache)
	require.NoError(t, err)
	assert.Empty(t, entries)

	opts.Cache = filepath.Join(t.TempDir(), "rtc")
	p, err := CompileFor(target, source, opts)
	require.NoError(t, err)
	bins, err := filepath.Glob(filepath.Join(opts.Cache, "*.bin"))
	require.NoError(t, err)
	require.Len(t, bins, 1)
	key := strings.TrimSuffix(filepath.Base(bins[0]), ".bin")
	other := &cache{mac: bytes.Repeat([]byte{7}, macKeySize)}
	withOtherKey, err := other.encode(key, forged)
	require.NoError(t, err)
	for name, b := range map[string][]byte{"sha256 entry (v2)": v2Entry(t, key, forged), "other user's key": withOtherKey} {
		require.NoError(t, os.WriteFile(bins[0], b, 0o600))
		var again *Program
		assert.EqualValues(t, 1, compileCount(func() {
			again, err = CompileFor(target, source, opts)
			require.NoError(t, err)
		}), name)
		assert.False(t, again.Cached, name)
		assert.Equal(t, p.Image, again.Image, name)
		assert.Equal(t, p.Lowered, again.Lowered, name)
	}
}
