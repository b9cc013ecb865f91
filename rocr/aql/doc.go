// Package aql defines the Architected Queuing Language packets of the HSA
// specification, bit-exact with hsa.h: kernel dispatch, barrier-AND,
// barrier-OR, agent dispatch, vendor-specific and invalid packets, and the
// header word that publishes them.
//
// Everything here is a pure function of bytes: no state, no agent. Packets
// are plain structs of exactly 64 bytes whose field offsets match the C
// layout, so a *KernelDispatch may be laid directly over a queue slot.
//
// The project's own AGENT_DISPATCH packets (copies, fills, host callbacks,
// native calls, 2-D and 3-D copies) have their function codes and flags
// here too, with the one encoding of their four argument words: producers
// build an AgentCall from a typed work value (CopyWork, FillWork, ...),
// agents read the words back with DecodeCopy, DecodeFill and so on.
package aql
