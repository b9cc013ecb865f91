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
//     on the GPU of its local rank (the one GPU a launcher left visible;
//     without GPUs, the process's cpu agent of that local rank modulo
//     their number, so that a launcher's smoke test runs anywhere),
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
// (store requests, the meeting point, peer links) is TLS 1.3 from
// crypto/tls, bound to the secret: once the TLS handshake is done, the
// client sends an HMAC-SHA256 of the session's exported keying material
// (ConnectionState.ExportKeyingMaterial, RFC 8446 §7.5) under a key
// derived from the secret with crypto/hkdf for the connection's role
// (store, meeting point or peer); the server checks it before it reads
// anything else, then answers with its own proof, made the same way for
// the server's side, which the client checks before it sends anything
// else. All of it happens within a deadline of 3 seconds. Records then
// get TLS's protection: AES-GCM or ChaCha20-Poly1305, numbered, under
// keys from an ephemeral X25519 exchange, so recorded traffic stays
// sealed even to one who later learns the secret (forward secrecy).
//
// Certificates are ephemeral: each process makes an ed25519 key and a
// self-signed certificate, and no client verifies it. The proofs take
// the certificate's place, and that is sound because the exporter's
// output is unique to one TLS session and known only to its two ends: a
// man in the middle runs two sessions, one with each side, so a proof it
// relays from one was made over the other session's keying material and
// fails; it cannot make one of its own without the secret. TLS's own
// Finished messages bind the exporter to everything in the handshake,
// the server's key included. The client proves itself first, so that a
// listener, which anyone may reach, gives out no proof to a stranger; a
// client only connects to the address its ID or its store names. Each
// proof names its side, so a server cannot send a client's proof back.
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
// Limits: a connection that has not proved the secret within 3 s is
// dropped. A listener authenticates at most 64 connections at once, and
// at most 16 from one address; a new connection past either limit takes
// the place of the oldest one still authenticating (of its own address,
// past that address's limit) once that one has had 100 ms, and is closed
// itself before then. Connections that never finish their handshake thus
// cannot keep an honest client out, a burst of honest ones (many ranks of
// one host) does not close handshakes about to finish, and clients
// connect again when a connection is closed during its handshake. An
// attacker that opens connections faster than the listener's handshakes
// finish still delays clients, up to their rendezvous timeout. A reader allocates at most
// what the record in progress declares (64 KiB) and TLS authenticates
// each of its records before handing on a byte. A store holds at most 256
// keys of at most 256 bytes with values of at most 16 KiB; it lets at
// most 1024 Gets wait for a key and serves at most 1088 requests at once,
// and tells those past that to ask again, which they do; a Get waits at
// most the rendezvous timeout. A client that hangs up frees what it held.
// A rank holds at most 256 messages of each kind (sends, collectives)
// from a peer in another process that it has not yet received, and at
// most 16 MiB of them beyond what the operations it has queued take from
// that peer: a message past that waits, unread, until this rank queues an
// operation that takes it. A message's length must be what its header's
// operation carries (count elements of its type), at most 1 TiB; a peer
// past these limits is dropped as departed. An ID's meeting point closes
// once its ranks met, on ID.Close, or after the rendezvous timeout
// (telling the ranks that came), and a process keeps at most 64 open.
//
// The rendezvous timeout is HIPGO_COLLECTIVE_TIMEOUT (a Go duration or
// seconds), five minutes by default; NewRankContext, JoinContext and
// FromEnvContext give up earlier at their context's deadline. A
// rendezvous that times out fails with hipErrorLaunchTimeOut, wrapping
// context.DeadlineExceeded; one whose context is cancelled wraps
// context.Canceled.
//
// All functions are safe from several goroutines. They return once the
// work is queued; NewAll and NewRank wait for every rank to join, Destroy
// waits for the rank's queued work.
package collective
