package rocr_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/rocr/hsa"
)

func TestStatusValuesAndStrings(t *testing.T) {
	for _, tc := range []struct {
		st   hsa.Status
		val  uint32
		name string
	}{
		{hsa.StatusSuccess, 0, "HSA_STATUS_SUCCESS"},
		{hsa.StatusErrorInvalidArgument, 0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT"},
		{hsa.StatusErrorOutOfResources, 0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES"},
		{hsa.StatusErrorInvalidPacketFormat, 0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT"},
		{hsa.StatusErrorNotInitialized, 0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED"},
		{hsa.StatusErrorFatal, 0x1026, "HSA_STATUS_ERROR_FATAL"},
		{hsa.StatusErrorInvalidMemoryPool, 40, "HSA_STATUS_ERROR_INVALID_MEMORY_POOL"},
		{hsa.StatusErrorNotSupported, 47, "HSA_STATUS_ERROR_NOT_SUPPORTED"},
	} {
		if uint32(tc.st) != tc.val || tc.st.Name() != tc.name || !strings.HasPrefix(tc.st.String(), tc.name+": ") || tc.st.Error() != tc.st.String() {
			t.Errorf("%#x: name %q string %q", uint32(tc.st), tc.st.Name(), tc.st.String())
		}
	}
	names := map[string]hsa.Status{}
	for _, s := range hsa.Statuses() {
		if prev, dup := names[s.Name()]; dup {
			t.Errorf("%#x and %#x share the name %s", uint32(prev), uint32(s), s.Name())
		}
		names[s.Name()] = s
		if !strings.HasPrefix(s.Name(), "HSA_STATUS_") || len(s.String()) <= len(s.Name())+2 {
			t.Errorf("%#x: %q", uint32(s), s.String())
		}
	}
	if len(names) < 40 {
		t.Errorf("only %d statuses", len(names))
	}
	if s := hsa.Status(0x9999); s.Name() != "HSA_STATUS(0x9999)" || s.String() != s.Name() {
		t.Errorf("unknown status: %q %q", s.Name(), s.String())
	}
}

func TestErrorsIs(t *testing.T) {
	sentinels := []error{hsa.ErrInvalidArgument, hsa.ErrOutOfResources, hsa.ErrNotOwner, hsa.ErrNoAgent,
		hsa.ErrNotSupported, hsa.ErrNotInitialized, hsa.ErrInvalidSignal, hsa.ErrInvalidQueue, hsa.ErrInvalidPacket,
		hsa.ErrInvalidAllocation, hsa.ErrInvalidCodeObject, hsa.ErrKernelFailed, hsa.ErrTimeout}
	for _, tc := range []struct {
		st   hsa.Status
		want error
	}{
		{hsa.StatusErrorInvalidArgument, hsa.ErrInvalidArgument},
		{hsa.StatusErrorInvalidIndex, hsa.ErrInvalidArgument},
		{hsa.StatusErrorOutOfResources, hsa.ErrOutOfResources},
		{hsa.StatusErrorInvalidAgent, hsa.ErrNoAgent},
		{hsa.StatusErrorNotSupported, hsa.ErrNotSupported},
		{hsa.StatusErrorNotInitialized, hsa.ErrNotInitialized},
		{hsa.StatusErrorInvalidSignal, hsa.ErrInvalidSignal},
		{hsa.StatusErrorInvalidQueue, hsa.ErrInvalidQueue},
		{hsa.StatusErrorInvalidQueueCreation, hsa.ErrInvalidQueue},
		{hsa.StatusErrorInvalidPacketFormat, hsa.ErrInvalidPacket},
		{hsa.StatusErrorInvalidAllocation, hsa.ErrInvalidAllocation},
		{hsa.StatusErrorInvalidCodeObject, hsa.ErrInvalidCodeObject},
		{hsa.StatusErrorException, hsa.ErrKernelFailed},
		{hsa.StatusErrorMemoryApertureViolation, hsa.ErrKernelFailed},
		{hsa.StatusError, nil},
	} {
		err := hsa.Errorf(tc.st, "op", "thing %d", 7)
		wrapped := fmt.Errorf("outer: %w", err)
		for _, e := range []error{err, wrapped, tc.st} {
			if !errors.Is(e, tc.st) {
				t.Errorf("%v is not its status %s", e, tc.st.Name())
			}
			if hsa.StatusOf(e) != tc.st {
				t.Errorf("StatusOf(%v) = %s", e, hsa.StatusOf(e).Name())
			}
			for _, s := range sentinels {
				if errors.Is(e, s) != (s == tc.want) {
					t.Errorf("errors.Is(%v (%T), %v) = %v", e, e, s, !(s == tc.want))
				}
			}
		}
		if errors.Is(err, hsa.StatusErrorFatal) {
			t.Errorf("%v matches another status", err)
		}
		if got, want := err.Error(), "op: thing 7 ("+tc.st.Name()+")"; got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
	// An explicit sentinel, a status and a cause all match.
	cause := io.ErrUnexpectedEOF
	err := hsa.Newf(hsa.ErrNotOwner, hsa.StatusErrorInvalidAgent, "access", "buffer %s: %w", "b", cause)
	if !errors.Is(err, hsa.ErrNotOwner) || !errors.Is(err, hsa.StatusErrorInvalidAgent) || !errors.Is(err, cause) {
		t.Errorf("Newf: %v", err)
	}
	if got, want := err.Error(), "access: buffer b: unexpected EOF (HSA_STATUS_ERROR_INVALID_AGENT)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var re *hsa.Error
	if !errors.As(err, &re) || re.Op != "access" || re.Msg != "buffer b" || re.Err != cause {
		t.Errorf("fields: %+v", re)
	}
	if got := (&hsa.Error{Status: hsa.StatusErrorFatal}).Error(); got != "HSA_STATUS_ERROR_FATAL (HSA_STATUS_ERROR_FATAL)" {
		t.Errorf("empty error: %q", got)
	}
}

func TestStatusOf(t *testing.T) {
	if hsa.StatusOf(nil) != hsa.StatusSuccess {
		t.Error("StatusOf(nil)")
	}
	if hsa.StatusOf(io.EOF) != hsa.StatusError {
		t.Error("StatusOf(io.EOF)")
	}
	inner := hsa.Errorf(hsa.StatusErrorOutOfResources, "a", "b")
	outer := hsa.Errorf(hsa.StatusErrorInvalidArgument, "c", "d: %w", inner)
	if hsa.StatusOf(outer) != hsa.StatusErrorInvalidArgument || !errors.Is(outer, hsa.ErrOutOfResources) {
		t.Errorf("nested: %s %v", hsa.StatusOf(outer).Name(), outer)
	}
	if hsa.StatusOf(fmt.Errorf("x: %w", hsa.StatusErrorInvalidSignal)) != hsa.StatusErrorInvalidSignal {
		t.Error("StatusOf a wrapped Status")
	}
}
