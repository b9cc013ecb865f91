package devprintf

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the bytes before the first record.
const HeaderSize = 8

// overflowBit marks a count whose kernels dropped records.
const overflowBit = 1 << 31

// Header reads a buffer's header word: the bytes of records written
// (used) and whether a record was dropped.
func Header(count uint32) (used uint32, overflowed bool) {
	return count &^ overflowBit, count&overflowBit != 0
}

// Output receives decoded records.
type Output struct {
	Stdout, Stderr []byte
	// Malformed counts records that could not be decoded: a control word
	// whose size runs past the bytes written, an unknown format hash. A
	// record whose size is wrong ends the decoding, since the next record
	// cannot be found.
	Malformed int
	// Unknown is the first unknown format hash, for a message.
	Unknown uint64
	// Cut: the rendering reached MaxOutput bytes and the records after
	// were skipped.
	Cut bool
}

// MaxOutput bounds what one Decode renders: widths of up to maxWidth
// make a record's output hundreds of times its size, and a buggy kernel
// fills its buffer with such records as easily as with any.
const MaxOutput = 16 << 20

// Decode appends the rendering of the records in recs (the bytes after
// the header, as many as the header says were written) to out, looking
// constant formats up in formats.
func Decode(recs []byte, formats func(hash uint64) (string, bool), out *Output) {
	for len(recs) > 0 {
		if len(out.Stdout)+len(out.Stderr) >= MaxOutput {
			out.Cut = true
			return
		}
		if len(recs) < 4 {
			out.Malformed++
			return
		}
		ctrl := binary.LittleEndian.Uint32(recs)
		size := int(ctrl >> 2)
		if size < 4 || size > len(recs) {
			out.Malformed++
			return
		}
		rec := recs[4:size]
		recs = recs[size:]
		dst := &out.Stdout
		if ctrl&1 != 0 {
			dst = &out.Stderr
		}
		var format string
		constant := ctrl&2 != 0
		if constant {
			if len(rec) < 8 {
				out.Malformed++
				continue
			}
			h := binary.LittleEndian.Uint64(rec)
			rec = rec[8:]
			f, ok := formats(h)
			if !ok {
				if out.Malformed == 0 {
					out.Unknown = h
				}
				out.Malformed++
				continue
			}
			format = f
		} else {
			s, n, ok := cString(rec)
			if !ok {
				out.Malformed++
				continue
			}
			format, rec = s, rec[n:]
		}
		a := frameArgs{b: rec, strings: constant}
		*dst = Render(*dst, format, &a)
	}
}

// frameArgs hands a record's arguments to Render.
type frameArgs struct {
	b []byte
	// strings: %s arguments are inline strings (a constant format);
	// otherwise the device passed their addresses.
	strings bool
}

func (a *frameArgs) Word() (uint64, bool) {
	if len(a.b) < 8 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(a.b)
	a.b = a.b[8:]
	return v, true
}

func (a *frameArgs) String() (string, bool) {
	if !a.strings {
		p, ok := a.Word()
		if !ok {
			return "", false
		}
		return fmt.Sprintf("(string at %#x)", p), true
	}
	if len(a.b) == 0 {
		return "(null)", true // a null pointer takes no bytes
	}
	s, n, ok := cString(a.b)
	if !ok {
		return "", false
	}
	a.b = a.b[n:]
	return s, true
}

// cString reads a NUL-terminated string padded to 8 bytes from b: the
// string and the bytes it takes.
func cString(b []byte) (string, int, bool) {
	for i, c := range b {
		if c == 0 {
			n := min((i+1+7)&^7, len(b))
			return string(b[:i]), n, true
		}
	}
	return "", 0, false
}
