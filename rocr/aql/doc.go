// Package aql defines the Architected Queuing Language packets of the HSA
// specification, bit-exact with hsa.h: kernel dispatch, barrier-AND,
// barrier-OR, agent dispatch, vendor-specific and invalid packets, and the
// header word that publishes them.
//
// Everything here is a pure function of bytes: no state, no agent. Packets
// are plain structs of exactly 64 bytes whose field offsets match the C
// layout, so a *KernelDispatch may be laid directly over a queue slot.
package aql
