package rtc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
)

// CacheEnv names the variable that moves the cache ("off" disables it).
const CacheEnv = "HIPGO_RTC_CACHE"

// entryMagic starts every cache entry; a new layout gets a new magic.
const entryMagic = "hipgo-rtc 2\n" // 2: NVRTC's cubin comes in a fat binary with its PTX

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

// entryHeader is the first line of an entry; the image follows it.
type entryHeader struct {
	Key      string            `json:"key"`
	Target   string            `json:"target"`
	Compiler string            `json:"compiler"`
	Lowered  map[string]string `json:"lowered,omitempty"`
	Log      string            `json:"log,omitempty"`
	Size     int               `json:"size"`
	Sum      string            `json:"sha256"`
}

func entryPath(dir, key string) string { return filepath.Join(dir, key+".bin") }

// readEntry returns the cached program, or nil when there is none or it
// does not check out (truncated, overwritten, another layout): then the
// program is compiled again and the entry replaced.
func readEntry(dir, key string) *Program {
	b, err := os.ReadFile(entryPath(dir, key))
	if err != nil {
		return nil
	}
	rest, ok := bytes.CutPrefix(b, []byte(entryMagic))
	if !ok {
		return nil
	}
	line, image, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil
	}
	var h entryHeader
	if json.Unmarshal(line, &h) != nil || h.Key != key || h.Size != len(image) || h.Size == 0 {
		return nil
	}
	sum := sha256.Sum256(image)
	if hex.EncodeToString(sum[:]) != h.Sum {
		return nil
	}
	return &Program{Target: h.Target, Compiler: h.Compiler, Image: image, Lowered: h.Lowered, Log: h.Log, Cached: true}
}

// writeEntry stores p so that a reader sees the whole entry or none:
// another process may read or write the same key at the same time, so
// the entry is written beside its place and renamed into it.
func writeEntry(dir, key string, p *Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(p.Image)
	line, err := json.Marshal(entryHeader{Key: key, Target: p.Target, Compiler: p.Compiler, Lowered: p.Lowered, Log: p.Log, Size: len(p.Image), Sum: hex.EncodeToString(sum[:])})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+key[:16]+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	var buf bytes.Buffer
	buf.WriteString(entryMagic)
	buf.Write(line)
	buf.WriteByte('\n')
	buf.Write(p.Image)
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, entryPath(dir, key))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
