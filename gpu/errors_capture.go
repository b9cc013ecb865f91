package gpu

// HIP's stream capture error codes (hipStreamBeginCapture and the
// operations made while a stream captures).
const (
	ErrorStreamCaptureUnsupported ErrorCode = 900 // not permitted while capturing
	ErrorStreamCaptureInvalidated ErrorCode = 901 // an earlier failure invalidated the capture
	ErrorStreamCaptureMerge       ErrorCode = 902 // would merge two independent captures
	ErrorStreamCaptureUnmatched   ErrorCode = 903 // the capture was not begun on this stream
	ErrorStreamCaptureUnjoined    ErrorCode = 904 // a fork was not joined back
	ErrorStreamCaptureIsolation   ErrorCode = 905 // a dependency crosses the capture's boundary
	ErrorStreamCaptureImplicit    ErrorCode = 906 // implicit synchronization with a capturing stream
	ErrorCapturedEvent            ErrorCode = 907 // not permitted on an event recorded in a capture
)

// Sentinels for the capture codes.
var (
	ErrStreamCaptureUnsupported error = ErrorStreamCaptureUnsupported
	ErrStreamCaptureInvalidated error = ErrorStreamCaptureInvalidated
)

func init() {
	for c, n := range map[ErrorCode]string{
		ErrorStreamCaptureUnsupported: "hipErrorStreamCaptureUnsupported",
		ErrorStreamCaptureInvalidated: "hipErrorStreamCaptureInvalidated",
		ErrorStreamCaptureMerge:       "hipErrorStreamCaptureMerge",
		ErrorStreamCaptureUnmatched:   "hipErrorStreamCaptureUnmatched",
		ErrorStreamCaptureUnjoined:    "hipErrorStreamCaptureUnjoined",
		ErrorStreamCaptureIsolation:   "hipErrorStreamCaptureIsolation",
		ErrorStreamCaptureImplicit:    "hipErrorStreamCaptureImplicit",
		ErrorCapturedEvent:            "hipErrorCapturedEvent",
	} {
		codeNames[c] = n
	}
}
