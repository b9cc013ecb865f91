package rtc

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/hipgo/hipgo/gpu/internal/debug"
)

// CacheEnv names the variable that moves the cache ("off" disables it).
const CacheEnv = "HIPGO_RTC_CACHE"

// entryMagic starts every cache entry; a new layout gets a new magic.
// 2: NVRTC's cubin comes in a fat binary with its PTX. 3: the entry ends
// with its MAC under the user's key, which replaces the header's SHA-256.
const entryMagic = "hipgo-rtc 3\n"

// maxEntrySize caps a cache entry: a larger file is not read. Code
// objects and fat binaries are a few MiB at most.
const maxEntrySize = 256 << 20

// cacheDir is the directory to use, "" for none.
func cacheDir(opt string) string {
	d := opt
	if d == "" {
		d = os.Getenv(CacheEnv)
	}
	if d == "off" {
		return ""
	}
	if d == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "" // no home: compile every time
		}
		d = filepath.Join(base, "hipgo", "rtc")
	}
	return d
}

// key hashes everything that changes the compiler's output. Each field is
// length-prefixed so that no two requests run together into one text.
func (r *request) key(compilerID string) string {
	h := sha256.New()
	field := func(s string) {
		_ = binary.Write(h, binary.LittleEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	field(entryMagic)
	field(compilerID)
	field(r.target)
	field(r.name)
	field(r.source)
	field("flags")
	for _, f := range r.flags {
		field(f)
	}
	field("names")
	for _, n := range r.names {
		field(n)
	}
	field("headers")
	names, bodies := r.headerLists()
	for i := range names {
		field(names[i])
		field(bodies[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// entryHeader is the line after the magic; the image follows it, then
// the MAC of all that comes before.
type entryHeader struct {
	Key      string            `json:"key"`
	Target   string            `json:"target"`
	Compiler string            `json:"compiler"`
	Lowered  map[string]string `json:"lowered,omitempty"`
	Log      string            `json:"log,omitempty"`
	Size     int               `json:"size"`
}

func entryPath(dir, key string) string { return filepath.Join(dir, key+".bin") }

// cache is a cache directory that passed its checks, with the key that
// authenticates its entries.
type cache struct {
	dir string
	mac []byte
}

// openCache makes dir ready for use, or says why it is not to be used:
// a directory others own or may write, or no key to trust.
func openCache(dir string) (*cache, error) {
	kf, err := keyFile()
	if err != nil {
		return nil, err
	}
	if within(kf, dir) {
		return nil, fmt.Errorf("key file %s lies in the cache directory, whose writers could replace it", kf)
	}
	if err := mkdirPrivate(dir); err != nil {
		return nil, err
	}
	k, err := macKey(kf)
	if err != nil {
		return nil, err
	}
	return &cache{dir: dir, mac: k}, nil
}

// cached returns the program the cache at dir holds under key, or
// compiles it and stores it there. A cache that is not to be trusted is
// not used, and an entry that does not check out is compiled again and
// replaced; both are logged as warnings (AMD_LOG_LEVEL=2).
func cached(dir, key string, compile func() (*Program, error)) (*Program, error) {
	if dir == "" {
		return compile()
	}
	c, err := openCache(dir)
	if err != nil {
		debug.Log(debug.LogWarning, "rtc: cache not used", slog.String("dir", dir), slog.Any("error", err))
		return compile()
	}
	p, err := c.read(key)
	if err != nil {
		debug.Log(debug.LogWarning, "rtc: cache entry refused, compiling again", slog.Any("error", err))
	}
	if p != nil {
		return p, nil
	}
	if p, err = compile(); err != nil {
		return nil, err
	}
	_ = c.write(key, p) // the cache only saves time: a full disk costs a compile next time
	return p, nil
}

// sum is the entry's MAC: it binds the bytes to the key they are stored
// under, so an entry neither forged nor moved from another key checks out.
func (c *cache) sum(key string, body []byte) []byte {
	m := hmac.New(sha256.New, c.mac)
	_ = binary.Write(m, binary.LittleEndian, uint64(len(key)))
	m.Write([]byte(key))
	m.Write(body)
	return m.Sum(nil)
}

// read returns the program cached under key: nil, nil where there is
// none; nil and why where the entry does not check out.
func (c *cache) read(key string) (*Program, error) {
	path := entryPath(c.dir, key)
	f, st, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry %s: %w", path, err)
	}
	defer f.Close()
	if st.Size() > maxEntrySize {
		return nil, fmt.Errorf("cache entry %s: %d bytes, over the cap of %d", path, st.Size(), maxEntrySize)
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("cache entry %s: %w", path, err)
	}
	p, err := c.parse(key, b)
	if err != nil {
		return nil, fmt.Errorf("cache entry %s: %w", path, err)
	}
	return p, nil
}

// parse checks an entry's bytes and returns its program. The MAC is
// checked before the header is parsed: only bytes this user's hipgo
// wrote for this key reach the JSON decoder.
func (c *cache) parse(key string, b []byte) (*Program, error) {
	body, ok := bytes.CutPrefix(b, []byte(entryMagic))
	if !ok {
		return nil, errors.New("another layout")
	}
	if len(body) < sha256.Size {
		return nil, errors.New("truncated")
	}
	body, tag := body[:len(body)-sha256.Size], body[len(body)-sha256.Size:]
	if !hmac.Equal(tag, c.sum(key, b[:len(entryMagic)+len(body)])) {
		return nil, errors.New("MAC mismatch: not written under this user's key for this program")
	}
	line, image, ok := bytes.Cut(body, []byte("\n"))
	if !ok {
		return nil, errors.New("no header")
	}
	var h entryHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if h.Key != key || h.Size != len(image) || h.Size == 0 {
		return nil, fmt.Errorf("header for key %q, %d bytes; the entry is %q, %d bytes", h.Key, h.Size, key, len(image))
	}
	return &Program{Target: h.Target, Compiler: h.Compiler, Image: slices.Clip(image), Lowered: h.Lowered, Log: h.Log, Cached: true}, nil
}

// encode is the entry write stores for p under key.
func (c *cache) encode(key string, p *Program) ([]byte, error) {
	line, err := json.Marshal(entryHeader{Key: key, Target: p.Target, Compiler: p.Compiler, Lowered: p.Lowered, Log: p.Log, Size: len(p.Image)})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(entryMagic)
	buf.Write(line)
	buf.WriteByte('\n')
	buf.Write(p.Image)
	buf.Write(c.sum(key, buf.Bytes()))
	if buf.Len() > maxEntrySize {
		return nil, fmt.Errorf("%d bytes, over the cap of %d", buf.Len(), maxEntrySize)
	}
	return buf.Bytes(), nil
}

// write stores p so that a reader sees the whole entry or none: another
// process may read or write the same key at the same time, so the entry
// is written beside its place (0600) and renamed into it. The rename
// replaces whatever was there, a link or a FIFO included.
func (c *cache) write(key string, p *Program) error {
	b, err := c.encode(key, p)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, ".tmp-"+key[:min(len(key), 16)]+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, entryPath(c.dir, key))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
