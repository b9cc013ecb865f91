// Package graph is HIP's graphs: a set of operations with dependencies
// (Graph, hipGraph_t), checked once and laid out as AQL packets (Exec,
// hipGraphExec_t), then launched on any stream of its device as many
// times as wanted, for a fraction of the cost of launching each operation.
//
// Build a graph by adding nodes after the nodes they depend on: kernel
// launches (AddKernel, with LaunchKernelGGL's arguments or a
// module.Args), copies between buffers (AddCopy), fills (AddFill), host
// functions (AddHost) and empty joins (AddEmpty). Instantiate checks every
// launch as a direct launch is checked (signature, ownership, limits) and
// encodes its kernarg image; SetKernelParams replaces a kernel node's
// launch in an Exec between launches, checked the same way.
//
// A launch writes the graph's packets into the stream's queue in one
// reservation and rings its doorbell once; every packet carries the
// barrier bit, so the queue runs them in the order they were added, which
// respects every dependency. Automatic dependencies hold around a launch:
// it waits for the earlier users of its buffers on other streams, as a
// direct launch does, and later work on other streams waits for it.
//
// Lifetimes: an Exec does not depend on its Graph, which may be destroyed
// once instantiated. The buffers and modules a graph uses must outlive
// its launches; a launch after one was freed or unloaded fails.
//
// Every call is safe from several goroutines. Launch blocks only while
// the queue is full; launches of one Exec on several streams run
// concurrently, ordered only by the buffers they share.
package graph
