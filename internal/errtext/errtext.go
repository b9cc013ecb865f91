package errtext

import (
	"reflect"
	"strings"
)

// Join is "op: msg: cause" with the empty parts and their separators left
// out; err may be nil. An error that wraps another of the same operation
// names it once: "stream: x" wrapped by op "stream" stays "stream: x".
func Join(op, msg string, err error) string {
	var cause string
	if err != nil {
		cause = err.Error()
		if op != "" && (cause == op || strings.HasPrefix(cause, op+": ")) {
			if msg == "" {
				return cause
			}
			cause = strings.TrimPrefix(strings.TrimPrefix(cause, op), ": ")
		}
	}
	s := op
	if msg != "" {
		if s != "" {
			s += ": "
		}
		s += msg
	}
	if cause != "" {
		if s != "" {
			s += ": "
		}
		s += cause
	}
	return s
}

// Tag appends " (tag)" to s, unless s ends with it already (a cause that
// carries the same status or code). Trailing white space of s (a
// compiler log's last newline) is dropped first, so the tag follows the
// text.
func Tag(s, tag string) string {
	s = strings.TrimRight(s, " \t\r\n")
	t := " (" + tag + ")"
	if strings.HasSuffix(s, t) {
		return s
	}
	return s + t
}

// IsNilValue reports whether err is a non-nil interface holding a nil
// pointer (a typed nil, as `var pe *fs.PathError; return pe` gives): its
// Error and Unwrap methods may panic, so it must not be called or wrapped.
func IsNilValue(err error) bool {
	if err == nil {
		return false
	}
	switch v := reflect.ValueOf(err); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return v.IsNil()
	}
	return false
}
