// Package rocrhook is how the project's tests reach inside rocr: a fault
// hook that makes a packet's driver call fail midway, counts of what the
// runtime holds (pool allocations, pinned host slices, pending host
// callbacks) to prove nothing leaked, and the sink of HSA_ENABLE_DEBUG's
// packet log. None of it is part of rocr's API.
//
// Every function is safe from several goroutines; with no fault hook set
// the packet processor pays one atomic load per packet.
package rocrhook
