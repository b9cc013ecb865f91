// Package hostref holds the Go values that AGENT_DISPATCH packets refer to
// by id: host callbacks (aql.AgentCallback), native calls (aql.AgentNative)
// Go byte slices pinned for the host end of a copy (aql.AgentCopy with
// aql.CopySrcHost or aql.CopyDstHost), and the descriptors of 2-D and 3-D
// copies (aql.AgentRect), which may name Go memory at either end. Go memory must not travel through a
// packet as a bare integer, so the submitter registers the value, writes
// the id into the packet, and the agent that runs the packet takes it back.
//
// Ids are process-wide and never reused. Every function is safe from
// several goroutines.
package hostref
