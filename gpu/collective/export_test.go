package collective

import "time"

// SetRendezvousTimeout shortens how long ranks wait for each other, for
// tests of a rank that never comes; it returns the restore.
func SetRendezvousTimeout(d time.Duration) (restore func()) {
	old := rendezvousLimit.Swap(int64(d))
	return func() { rendezvousLimit.Store(old) }
}

// SetHandshakeTimeout shortens each connection's authentication, for
// tests of idle and slow clients; it returns the restore.
func SetHandshakeTimeout(d time.Duration) (restore func()) {
	old := handshakeLimit.Swap(int64(d))
	return func() { handshakeLimit.Store(old) }
}
