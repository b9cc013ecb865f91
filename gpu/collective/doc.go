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
//     joins as the launcher placed the process (LaunchFromEnv: torchrun's
//     RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE, Open MPI's
//     OMPI_COMM_WORLD_*, MPICH's PMI_*, Slurm's SLURM_*),
//     on the GPU of its local rank (the one GPU a launcher left visible),
//     meeting at MASTER_ADDR:MASTER_PORT.
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
// another), queued on the stream's CUDA stream, and NCCL's calls without
// a stream run under the device's primary context, which the cuda driver
// makes current; on AMD GPUs RCCL's (librccl.so.1 with the HIP runtime;
// HIPGO_RCCL_LIBRARY, HIPGO_HIP_LIBRARY), which has not run on AMD
// hardware. The libraries are found as internal/vendorlib says.
// NCCL_NVLS_ENABLE is set to 0 before NCCL starts unless the environment
// sets it: hipgo does not use NVLink multicast.
//
// Errors are *gpu.Error values: ErrInvalidValue for bad arguments,
// ErrInvalidHandle for a nil, destroyed or aborted communicator,
// ErrNotSupported where the library is missing. A failure while the
// work runs (a peer that left, an aborted rank, NCCL's asynchronous
// errors) fails the stream like a faulting kernel, and carries NCCL's own
// message where NCCL reported it.
//
// As in NCCL, an operation waits on its stream until every rank it needs
// has reached it: a receive whose send never comes, or a collective one
// rank never calls, waits until that rank is destroyed or aborted (on cpu
// agents its stream then fails) or this rank is aborted.
//
// # Security (cpu agents across processes)
//
// Who may join: a process that holds the communicator's ID, or for a
// Store the job's secret. The threat is another local user or a host on
// the network that can connect to the listeners, send any bytes, and
// hold connections open; not one that can read this user's files or
// memory.
//
// The ID carries a 256-bit secret from crypto/rand. Every connection
// (store requests, the meeting point, peer links) starts with a mutual
// HMAC-SHA256 challenge-response: the client sends a 32-byte nonce, the
// server its own and a MAC over both, the client its MAC; each side's
// proof is bound to its role and to the connection (store, meeting point
// or peer), and nothing else is read before it, within a deadline of 5
// seconds. After it, every message is sealed per record (at most 64 KiB)
// with AES-256-GCM under keys derived from the secret and both nonces,
// numbered so that none can be dropped, replayed or reordered. Per-message
// authentication was chosen over a per-connection handshake alone because
// the ranks may span a network where TCP injection is possible, and the
// encryption keeps the store's values (the ID, secret inside) from
// anyone watching; AES-GCM runs at several GB/s with AES-NI, well above
// what the TCP path carries.
//
// A Store's secret is HIPGO_COLLECTIVE_SECRET (at least 16 bytes), or
// the file HIPGO_COLLECTIVE_SECRET_FILE names (0600, the user's own), which a job script
// sets for every rank. Without it, a store at a loopback address gets a
// new secret from the serving rank, in a 0600 file named after the
// address in $XDG_RUNTIME_DIR/hipgo, else a 0700 os.TempDir()/hipgo-UID,
// which the other ranks (the same user) read; it is removed on Close. A
// store at another address without a secret is refused with an error
// saying how to set one; HIPGO_COLLECTIVE_INSECURE=1 accepts any client,
// with a warning. Its keys belong to the job whose secret its clients
// proved; each communicator joined through it then has its ID's own
// secret.
//
// Listeners bind the address asked for. NewStore binds its address (only
// 0.0.0.0, [::] or an empty host is every interface). The meeting point
// and peer listeners bind HIPGO_COLLECTIVE_HOST where set, else the
// loopback address when MASTER_ADDR is loopback or unset, else the
// interface that owns or routes to MASTER_ADDR.
//
// Limits: a connection that has not proved the secret within 5 s is
// dropped; a listener authenticates at most 32 connections at once
// (concurrently, so a slow or idle one delays no other) and closes the
// rest unread; a reader allocates at most what the record in progress
// declares (64 KiB) before authenticating it, and a peer's message grows
// with the records that arrived, never with the length announced (at
// most 1 TiB). A store holds at most 256 keys of at most 256 bytes with
// values of at most 16 KiB, serves at most 64 clients at once, and a Get
// waits at most the rendezvous timeout (5 minutes). A rank holds at most
// 256 messages of each kind (sends, collectives) from a peer in another
// process that it has not yet received: a peer past that is dropped as
// departed. An ID's meeting point closes once its ranks met, on
// ID.Close, or after the rendezvous timeout, and a process keeps at most
// 64 open.
//
// All functions are safe from several goroutines. They return once the
// work is queued; NewAll and NewRank wait for every rank to join, Destroy
// waits for the rank's queued work.
package collective
