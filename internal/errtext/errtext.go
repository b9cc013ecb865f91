package errtext

// Join is "op: msg: cause" with the empty parts and their separators left
// out; err may be nil.
func Join(op, msg string, err error) string {
	s := op
	if msg != "" {
		if s != "" {
			s += ": "
		}
		s += msg
	}
	if err != nil {
		if s != "" {
			s += ": "
		}
		s += err.Error()
	}
	return s
}
