// Package errtext formats the messages of hipgo's error types, so that
// gpu.Error and rocr.Error read alike. Its functions are pure and safe
// from several goroutines.
package errtext
