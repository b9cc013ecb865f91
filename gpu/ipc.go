package gpu

import "github.com/hipgo/hipgo/rocr"

// IPCHandle shares memory or an event with another process
// (hipIpcMemHandle_t, hipIpcEventHandle_t): IPCHandleSize plain bytes that
// the program sends by any means it likes (a pipe, a socket, a file).
// buffer.Buffer.IPCHandle and stream.Event.IPCHandle make one;
// buffer.OpenIPC and stream.OpenIPCEvent open one in another process.
//
// A handle comes from outside the process, so everything in it is
// checked before it is used: its envelope (magic, version, kind, driver,
// size, the exporting process), then the driver's part, which on the cpu
// agent carries a random nonce that the shared memory's name must match.
// A forged, stale or corrupted handle is an error wrapping
// ErrInvalidValue, and opens nothing.
type IPCHandle = rocr.IPCHandle

// IPCHandleSize is the size of an IPCHandle in bytes.
const IPCHandleSize = rocr.IPCHandleSize

// ParseIPCHandle reads a handle from the bytes another process sent:
// exactly IPCHandleSize of them, with a valid envelope. Its driver part is
// checked when it is opened.
func ParseIPCHandle(b []byte) (IPCHandle, error) {
	h, err := rocr.ParseIPCHandle(b)
	return h, wrap("ipc handle", err)
}
