package devprintf

import (
	"math"
	"strconv"
	"strings"
)

// Args supplies a record's arguments in order.
type Args interface {
	// Word is the next 8-byte argument: an integer zero-extended to 64
	// bits, a double's bits, a pointer.
	Word() (uint64, bool)
	// String is the next %s argument.
	String() (string, bool)
}

// spec is one conversion specification.
type spec struct {
	minus, plus, space, hash, zero bool
	width, prec                    int // prec < 0: none
	length                         string
	conv                           byte
}

// Render appends format rendered with args to dst as C's printf does
// (glibc's choices where C leaves them to the implementation: "(nil)"
// for a null %p, "-nan"). An argument that is missing renders as
// "(missing)"; %n writes nothing.
func Render(dst []byte, format string, args Args) []byte {
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			dst = append(dst, format[i:i+j]...)
			i += j
			continue
		}
		start := i
		i++
		var s spec
		s.prec = -1
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				s.minus = true
			case '+':
				s.plus = true
			case ' ':
				s.space = true
			case '#':
				s.hash = true
			case '0':
				s.zero = true
			default:
				break flags
			}
		}
		missing := false
		if i < len(format) && format[i] == '*' {
			i++
			w, ok := args.Word()
			missing = missing || !ok
			s.width = int(int32(uint32(w)))
			if s.width < 0 {
				s.minus, s.width = true, -s.width
			}
		} else {
			s.width, i = number(format, i)
		}
		if i < len(format) && format[i] == '.' {
			i++
			if i < len(format) && format[i] == '*' {
				i++
				p, ok := args.Word()
				missing = missing || !ok
				s.prec = int(int32(uint32(p)))
				if s.prec < 0 {
					s.prec = -1
				}
			} else {
				s.prec, i = number(format, i)
			}
		}
		l := i
		for i < len(format) && strings.IndexByte("hljztLq", format[i]) >= 0 {
			i++
		}
		s.length = format[l:i]
		if i >= len(format) {
			dst = append(dst, format[start:]...) // an unfinished specification
			break
		}
		s.conv = format[i]
		i++
		if missing {
			dst = append(dst, "(missing)"...)
			continue
		}
		dst = s.render(dst, args, format[start:i])
	}
	return dst
}

// number reads decimal digits at i, capped so a hostile width cannot ask
// for gigabytes of padding.
func number(f string, i int) (int, int) {
	n := 0
	for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
		n = min(n*10+int(f[i]-'0'), maxWidth)
	}
	return n, i
}

// maxWidth bounds widths and precisions.
const maxWidth = 4096

func (s *spec) render(dst []byte, args Args, text string) []byte {
	s.width, s.prec = min(s.width, maxWidth), min(s.prec, maxWidth)
	switch s.conv {
	case '%':
		return append(dst, '%')
	case 'n':
		_, _ = args.Word()
		return dst
	case 's':
		v, ok := args.String()
		if !ok {
			return append(dst, "(missing)"...)
		}
		if s.prec >= 0 && len(v) > s.prec {
			v = v[:s.prec]
		}
		return s.pad(dst, "", v, false)
	}
	w, ok := args.Word()
	if !ok {
		return append(dst, "(missing)"...)
	}
	switch s.conv {
	case 'd', 'i':
		v := s.signed(w)
		sign := ""
		switch {
		case v < 0:
			sign = "-"
		case s.plus:
			sign = "+"
		case s.space:
			sign = " "
		}
		mag := uint64(v)
		if v < 0 {
			mag = -mag
		}
		return s.integer(dst, sign, mag, 10, "")
	case 'u':
		return s.integer(dst, "", s.unsigned(w), 10, "")
	case 'o':
		return s.integer(dst, "", s.unsigned(w), 8, "")
	case 'x':
		return s.integer(dst, "", s.unsigned(w), 16, "0x")
	case 'X':
		return s.integer(dst, "", s.unsigned(w), 16, "0X")
	case 'c':
		return s.pad(dst, "", string([]byte{byte(w)}), false)
	case 'p':
		if w == 0 {
			return s.pad(dst, "", "(nil)", false)
		}
		p := *s
		p.hash, p.length = true, "l"
		return p.integer(dst, s.sign(false), w, 16, "0x")
	case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
		return s.float(dst, math.Float64frombits(w))
	}
	return append(dst, text...) // not a conversion C knows: as written
}

// signed is the argument as the length modifier's signed type; without
// one it is an int, which the device zero-extended.
func (s *spec) signed(w uint64) int64 {
	switch s.length {
	case "hh":
		return int64(int8(w))
	case "h":
		return int64(int16(w))
	case "":
		return int64(int32(w))
	}
	return int64(w)
}

// unsigned is the argument as the length modifier's unsigned type.
func (s *spec) unsigned(w uint64) uint64 {
	switch s.length {
	case "hh":
		return uint64(uint8(w))
	case "h":
		return uint64(uint16(w))
	case "":
		return uint64(uint32(w))
	}
	return w
}

func (s *spec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case s.plus:
		return "+"
	case s.space:
		return " "
	}
	return ""
}

// integer renders an integer conversion: sign, prefix (0x for # on a
// nonzero value), digits to the precision, padded to the width.
func (s *spec) integer(dst []byte, sign string, v uint64, base int, prefix string) []byte {
	digits := strconv.FormatUint(v, base)
	if s.conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if s.prec == 0 && v == 0 {
		digits = ""
	}
	if s.prec > len(digits) {
		digits = strings.Repeat("0", s.prec-len(digits)) + digits
	}
	switch {
	case base == 8 && s.hash && !strings.HasPrefix(digits, "0"):
		digits = "0" + digits
		prefix = ""
	case base == 16 && s.hash && v != 0:
	default:
		prefix = ""
	}
	return s.pad(dst, sign+prefix, digits, s.zero && s.prec < 0)
}

// pad writes head (sign and prefix) and body to the width: spaces on the
// left, spaces on the right for '-', or zeros between head and body.
func (s *spec) pad(dst []byte, head, body string, zeros bool) []byte {
	n := s.width - len(head) - len(body)
	if n <= 0 {
		return append(append(dst, head...), body...)
	}
	switch {
	case s.minus:
		dst = append(append(dst, head...), body...)
		return appendRepeat(dst, ' ', n)
	case zeros:
		dst = append(dst, head...)
		return append(appendRepeat(dst, '0', n), body...)
	}
	return append(append(appendRepeat(dst, ' ', n), head...), body...)
}

func appendRepeat(dst []byte, c byte, n int) []byte {
	for range n {
		dst = append(dst, c)
	}
	return dst
}

// float renders %f %e %g %a and their capitals.
func (s *spec) float(dst []byte, v float64) []byte {
	neg := math.Signbit(v)
	sign := s.sign(neg)
	upper := s.conv >= 'A' && s.conv <= 'Z'
	if math.IsInf(v, 0) || math.IsNaN(v) {
		body := "inf"
		if math.IsNaN(v) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return s.pad(dst, sign, body, false)
	}
	v = math.Abs(v)
	prec := s.prec
	var body string
	switch s.conv | 0x20 {
	case 'f':
		if prec < 0 {
			prec = 6
		}
		body = strconv.FormatFloat(v, 'f', prec, 64)
		if s.hash && prec == 0 {
			body += "."
		}
	case 'e':
		if prec < 0 {
			prec = 6
		}
		body = expForm(v, prec, s.hash)
	case 'g':
		body = s.general(v, prec)
	case 'a':
		body = hexForm(v, prec, s.hash)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	if s.conv|0x20 == 'a' {
		sign += body[:2] // 0x: zeros go after it
		body = body[2:]
	}
	return s.pad(dst, sign, body, s.zero)
}

// expForm is %e: d.ddde±XX, at least two exponent digits.
func expForm(v float64, prec int, hash bool) string {
	b := strconv.FormatFloat(v, 'e', prec, 64)
	if hash && prec == 0 {
		i := strings.IndexByte(b, 'e')
		b = b[:i] + "." + b[i:]
	}
	return b
}

// general is %g: %e or %f by the exponent, trailing zeros removed
// unless '#'.
func (s *spec) general(v float64, prec int) string {
	switch {
	case prec < 0:
		prec = 6
	case prec == 0:
		prec = 1
	}
	e := strconv.FormatFloat(v, 'e', prec-1, 64)
	x, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	var b string
	if x < prec && x >= -4 {
		b = strconv.FormatFloat(v, 'f', prec-1-x, 64)
		if s.hash && !strings.Contains(b, ".") {
			b += "."
		}
		if !s.hash {
			b = trimZeros(b)
		}
		return b
	}
	if s.hash {
		return expForm(v, prec-1, true)
	}
	i := strings.IndexByte(e, 'e')
	return trimZeros(e[:i]) + e[i:]
}

// trimZeros removes a fraction's trailing zeros, and its point if bare.
func trimZeros(b string) string {
	if !strings.Contains(b, ".") {
		return b
	}
	b = strings.TrimRight(b, "0")
	return strings.TrimSuffix(b, ".")
}

// hexForm is %a: 0x1.hhhp±d, the exponent in as few digits as it needs.
func hexForm(v float64, prec int, hash bool) string {
	b := strconv.FormatFloat(v, 'x', prec, 64)
	i := strings.IndexByte(b, 'p')
	mant, exp := b[:i], b[i+1:]
	if hash && !strings.Contains(mant, ".") {
		mant += "."
	}
	if v == 0 && prec < 0 {
		mant = "0x0"
	}
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "p" + sign + digits
}
