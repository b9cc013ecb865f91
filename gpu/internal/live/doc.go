// Package live keeps the registry of live device objects behind
// gpu/gputest: which buffers, streams, events and modules a test's device
// made and has not released, and where each was made.
//
// Only objects made on a tracked device (a test's view of a device, opened
// by package gpu for gputest) are recorded: the view's scope is in its
// bookkeeping (gpu/internal/devstate), and for any other device it is nil,
// so Add is a nil check and Remove an atomic load, and launches never come
// here. The API packages call Add with the scope of the device when they
// make an object and Remove when they release it. All functions are safe
// for concurrent use.
package live
