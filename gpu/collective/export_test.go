package collective

import "time"

// SetRendezvousTimeout shortens how long ranks wait for each other, for
// tests of a rank that never comes; it returns the restore.
func SetRendezvousTimeout(d time.Duration) (restore func()) {
	old := rendezvousTimeout
	rendezvousTimeout = d
	return func() { rendezvousTimeout = old }
}
