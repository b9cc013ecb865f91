// Package collective is multi-device communication on hipgo streams,
// shaped like NCCL and RCCL: a communicator (Comm) has one rank per
// device, and AllReduce, Broadcast, Reduce, AllGather, ReduceScatter,
// Send and Recv queue work on a rank's stream, ordered with its kernels
// and copies and with other streams' work on the same buffers by the
// automatic dependencies launches get. A collective completes on a rank's
// stream once every rank's stream has reached it.
//
// Communicators are made two ways:
//
//   - NewAll: one rank per device, all in this process (ncclCommInitAll).
//   - NewRank: one rank per process (or per goroutine), joined by an ID
//     that one rank makes with NewID and hands the others
//     (ncclGetUniqueId, ncclCommInitRank). Join hands it through any
//     io.ReadWriter; Store is a small TCP key-value store for it; FromEnv
//     reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE and LOCAL_RANK as
//     torch launchers set them.
//
// Elements are int8, uint8, int32, uint32, int64, uint64, float32 and
// float64 (NCCL's types of those sizes); reductions are Sum, Prod, Max,
// Min and Avg. Buffers must belong to the rank's device, and the stream
// too. Buffer lengths give the counts; AllReduce, Broadcast and Reduce may
// run in place (send and recv the same buffer); AllGather and
// ReduceScatter cannot (their buffers differ in length).
//
// Group (GroupStart, Group.End) queues several operations as one step:
// what a rank that both sends and receives needs, and what lets one
// goroutine drive every rank of a communicator.
//
// The device's driver picks the backend. On cpu agents a rank's
// operations run as a host callback in stream order; ranks in one process
// exchange data through memory and ranks in different processes through
// TCP, and they check that they run the same operation: a mismatch (a
// different count, type, reduction or root) fails every rank's stream
// with an error naming both operations. On NVIDIA GPUs the operations are
// NCCL's (libnccl.so.2, opened at run time; HIPGO_NCCL_LIBRARY names
// another), queued on the stream's CUDA stream; on AMD GPUs RCCL's
// (librccl.so.1; HIPGO_RCCL_LIBRARY), which has not run on AMD hardware.
// NCCL_NVLS_ENABLE is set to 0 before NCCL starts unless the environment
// sets it: hipgo does not use NVLink multicast.
//
// Errors are *gpu.Error values: ErrorInvalidValue for bad arguments,
// ErrorInvalidHandle for a nil, destroyed or aborted communicator,
// ErrorNotSupported where the library is missing. A failure while the
// work runs (a peer that left, an aborted rank, NCCL's asynchronous
// errors) fails the stream like a faulting kernel, and carries NCCL's own
// message where NCCL reported it.
//
// As in NCCL, an operation waits on its stream until every rank it needs
// has reached it: a receive whose send never comes, or a collective one
// rank never calls, waits until that rank is destroyed or aborted (on cpu
// agents its stream then fails) or this rank is aborted.
//
// All functions are safe from several goroutines. They return once the
// work is queued; NewAll and NewRank wait for every rank to join, Destroy
// waits for the rank's queued work.
package collective
