// Package graph is HIP's graphs: a set of operations with dependencies
// (Graph, hipGraph_t), checked once and laid out as AQL packets (Exec,
// hipGraphExec_t), then launched on any stream of its device as many
// times as wanted, for a fraction of the cost of launching each operation.
//
// Build a graph by adding nodes after the nodes they depend on: kernel
// launches (AddKernel, with LaunchKernelGGL's arguments or a
// module.Args), copies between buffers (AddCopy), fills (AddFill), host
// functions (AddHost), empty joins (AddEmpty), and memory: alloc nodes
// (AddMemAlloc), whose buffer later nodes take, free nodes
// (AddMemFree), and event records and waits (AddEventRecord,
// AddEventWait), which a launch runs as the stream's own Record and
// WaitEvent at their place in the graph's order. A stream capture
// (BeginCapture) records into a graph that CaptureGraph shows while it
// goes on, with the nodes the next captured operation will depend on;
// UpdateCaptureDependencies changes them. Instantiate checks every
// launch as a direct launch is checked (signature, ownership, limits) and
// encodes its kernarg image; SetKernelParams, SetCopyParams,
// SetFillParams and SetHostParams replace one node's operation in an Exec
// between launches, checked the same way, and Update takes every node's
// parameters from another graph of the same shape (hipGraphExecUpdate).
// AddDependencies, RemoveDependencies and DestroyNode edit a graph's
// edges and nodes; the nodes are kept in an order that follows the edges.
//
// A launch writes the graph's packets into the stream's queue in one
// reservation and rings its doorbell once; every packet carries the
// barrier bit, so the queue runs them in the graph's order, which
// respects every dependency. Automatic dependencies hold around a launch:
// it waits for the earlier users of its buffers on other streams, as a
// direct launch does, and later work on other streams waits for it.
//
// Graph memory: an alloc node's memory comes from its device's default
// stream-ordered pool when the node is made (for a NewAsync captured on
// a stream, when it is captured), and stays the graph's until the graph
// and every Exec made from it are destroyed and their launches have
// completed; then it returns to the pool. Its address is therefore the
// same at every launch of every Exec, as CUDA fixes it for the life of
// an executable graph, and launches allocate nothing. Launches of Execs
// that share the memory are ordered by it, as by any buffer they share.
// Instantiate refuses a node that uses the memory without being ordered,
// by the graph's edges, after the alloc node and before the free node.
// A graph that allocates without freeing leaves the memory allocated
// after each launch, as CUDA does: work after the launch may use it,
// and Free, FreeAsync or a later graph's free node ends the allocation;
// launching the graph again before that is an error (CUDA's rule without
// InstantiateAutoFreeOnLaunch, which InstantiateWithFlags takes). Between a free and the next
// launch the memory stays reachable, and what it holds is undefined, as
// in CUDA. Unlike CUDA, where graphs that do not run at once may share
// physical memory, each graph holds its own for its life.
//
// Lifetimes: an Exec does not depend on its Graph, which may be destroyed
// once instantiated. The buffers and modules a graph uses must outlive
// its launches; a launch after one was freed or unloaded fails.
//
// Every call is safe from several goroutines. Launch blocks only while
// the queue is full; launches of one Exec on several streams run
// concurrently, ordered only by the buffers they share.
package graph
