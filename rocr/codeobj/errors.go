package codeobj

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every parse error matches ErrFormat and Select's
// failure matches ErrNoMatch. The package imports nothing of rocr so that
// it stays a leaf; gpu/module maps these onto rocr's sentinels
// (ErrInvalidCodeObject) where users meet them.
var (
	ErrFormat  = errors.New("invalid code object")
	ErrNoMatch = errors.New("no code object for target")
)

// FormatError says what is wrong with the bytes and where: the structure
// being read (an ELF section, a bundle entry, a PTX line) and a byte offset
// from the start of that structure's container, or -1 where none applies.
type FormatError struct {
	Where  string // "ELF header", "section .note", "bundle entry 2", "PTX line 14"
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	var sb strings.Builder
	sb.WriteString("code object: ")
	sb.WriteString(e.Where)
	if e.Offset >= 0 {
		fmt.Fprintf(&sb, " at offset %#x", e.Offset)
	}
	sb.WriteString(": ")
	sb.WriteString(e.Msg)
	return sb.String()
}

// Is makes errors.Is(err, ErrFormat) true.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func errorf(where string, off int64, format string, args ...any) error {
	return &FormatError{Where: where, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// NoMatchError is returned by Select when no code object fits the device.
type NoMatchError struct {
	Want string   // the device's target
	Have []string // the targets present, in file order
}

func (e *NoMatchError) Error() string {
	have := "none"
	if len(e.Have) > 0 {
		have = strings.Join(e.Have, ", ")
	}
	return fmt.Sprintf("no code object for target %s (have: %s)", e.Want, have)
}

// Is makes errors.Is(err, ErrNoMatch) true.
func (e *NoMatchError) Is(target error) bool { return target == ErrNoMatch }
