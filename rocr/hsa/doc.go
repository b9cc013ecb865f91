// Package hsa holds the value types that hipgo's runtime API (package rocr)
// and its driver interface (package spi) share: what an agent and a pool
// report about themselves, code and its kernels' symbols, and the
// enumerations of hsa.h and hsa_ext_amd.h (device types, segments, pool
// flags, queue types, signal conditions, wait hints, memory orders,
// managed-memory advice) with hsa.h's values.
//
// Everything here is plain data: no state, no driver, safe to copy and
// to use from several goroutines. rocr re-exports the sentinel errors
// (hsa.ErrNotOwner is hsa.ErrNotOwner); a program names the types and
// values here (hsa.AgentInfo, hsa.Status, hsa.CondEQ).
package hsa
