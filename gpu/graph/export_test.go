package graph

// Lowered reports whether e is replayed as the driver's recording.
func Lowered(e *Exec) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.low != nil
}
