// Package errtext formats the messages of hipgo's error types, so that
// gpu.Error and hsa.Error read alike, and tells a typed nil error
// (IsNilValue) that neither may wrap. Its functions are pure and safe
// from several goroutines.
package errtext
