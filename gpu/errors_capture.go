package gpu

// HIP's stream capture error codes (hipStreamBeginCapture and the
// operations made while a stream captures).
const (
	ErrStreamCaptureUnsupported ErrorCode = 900 // not permitted while capturing
	ErrStreamCaptureInvalidated ErrorCode = 901 // an earlier failure invalidated the capture
	ErrStreamCaptureMerge       ErrorCode = 902 // would merge two independent captures
	ErrStreamCaptureUnmatched   ErrorCode = 903 // the capture was not begun on this stream
	ErrStreamCaptureUnjoined    ErrorCode = 904 // a fork was not joined back
	ErrStreamCaptureIsolation   ErrorCode = 905 // a dependency crosses the capture's boundary
	ErrStreamCaptureImplicit    ErrorCode = 906 // implicit synchronization with a capturing stream
	ErrCapturedEvent            ErrorCode = 907 // not permitted on an event recorded in a capture
)

func init() {
	for c, n := range map[ErrorCode]string{
		ErrStreamCaptureUnsupported: "hipErrorStreamCaptureUnsupported",
		ErrStreamCaptureInvalidated: "hipErrorStreamCaptureInvalidated",
		ErrStreamCaptureMerge:       "hipErrorStreamCaptureMerge",
		ErrStreamCaptureUnmatched:   "hipErrorStreamCaptureUnmatched",
		ErrStreamCaptureUnjoined:    "hipErrorStreamCaptureUnjoined",
		ErrStreamCaptureIsolation:   "hipErrorStreamCaptureIsolation",
		ErrStreamCaptureImplicit:    "hipErrorStreamCaptureImplicit",
		ErrCapturedEvent:            "hipErrorCapturedEvent",
	} {
		codeNames[c] = n
	}
}
