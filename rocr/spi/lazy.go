package spi

// CompleterRef is a Completer as signals refer to it: an executor makes
// one for its lifetime, so deferring a signal allocates nothing.
type CompleterRef struct{ c Completer }

// NewCompleterRef wraps c for rocr.Signal.Defer.
func NewCompleterRef(c Completer) *CompleterRef { return &CompleterRef{c: c} }

// Completer is the completer r refers to.
func (r *CompleterRef) Completer() Completer { return r.c }
