package collective

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/gpu"
)

// defaultRendezvous is how long ranks wait for each other to join, and an
// ID's meeting point for them, where HIPGO_COLLECTIVE_TIMEOUT says nothing.
const defaultRendezvous = 5 * time.Minute

// rendezvousLimit, where not zero, replaces HIPGO_COLLECTIVE_TIMEOUT
// (tests shorten it: atomic, as goroutines of earlier tests may still
// read it).
var rendezvousLimit atomic.Int64

// rendezvousTimeout is HIPGO_COLLECTIVE_TIMEOUT, else five minutes. An
// unreadable value counts as unset here; the calls that start a
// rendezvous refuse it first (checkTimeoutEnv).
func rendezvousTimeout() time.Duration {
	if d := rendezvousLimit.Load(); d > 0 {
		return time.Duration(d)
	}
	d, _ := timeoutEnv()
	return d
}

// timeoutEnv reads HIPGO_COLLECTIVE_TIMEOUT: a Go duration ("90s",
// "10m") or a number of seconds.
func timeoutEnv() (time.Duration, error) {
	v := os.Getenv("HIPGO_COLLECTIVE_TIMEOUT")
	if v == "" {
		return defaultRendezvous, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		if n, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			d, err = time.Duration(n*float64(time.Second)), nil
		}
	}
	if err != nil || d <= 0 {
		return defaultRendezvous, fmt.Errorf("HIPGO_COLLECTIVE_TIMEOUT=%q is not a positive duration (for example 90s, 10m or 300)", v)
	}
	return d, nil
}

func checkTimeoutEnv(op string) error {
	if _, err := timeoutEnv(); err != nil {
		return argErr(op, "%v", err)
	}
	return nil
}

// rendezvousDeadline is when a rendezvous started now gives up: after
// the rendezvous timeout, or at ctx's deadline where that comes first.
func rendezvousDeadline(ctx context.Context) time.Time {
	deadline := time.Now().Add(rendezvousTimeout())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return deadline
}

// waitErr is the error of a rendezvous that ended waiting for what:
// ctx's own error where ctx is done or its deadline has passed, a timeout
// naming HIPGO_COLLECTIVE_TIMEOUT where the rendezvous timeout passed,
// else cause as a launch failure. A timeout is hipErrorLaunchTimeOut and
// wraps context.DeadlineExceeded either way.
func waitErr(ctx context.Context, op, what string, deadline time.Time, cause error) error {
	err := ctx.Err()
	if err == nil && !time.Now().Before(deadline) {
		if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
			err = context.DeadlineExceeded // ctx's deadline, a moment before ctx says so
		}
	}
	switch {
	case err == context.DeadlineExceeded:
		return &gpu.Error{Code: gpu.ErrLaunchTimeOut, Op: op, Msg: what + ": the context's deadline passed", Err: err}
	case err != nil:
		return &gpu.Error{Code: gpu.ErrLaunchFailure, Op: op, Msg: what, Err: err}
	case !time.Now().Before(deadline):
		return &gpu.Error{Code: gpu.ErrLaunchTimeOut, Op: op,
			Msg: fmt.Sprintf("%s: timed out after %v (HIPGO_COLLECTIVE_TIMEOUT)%s", what, rendezvousTimeout().Round(time.Millisecond), lastErr(cause)),
			Err: context.DeadlineExceeded}
	}
	return gpu.Errorf(gpu.ErrLaunchFailure, op, "%s: %v", what, cause)
}

func lastErr(err error) string {
	if err == nil {
		return ""
	}
	return "; last: " + err.Error()
}
