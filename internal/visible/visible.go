// Package visible applies a visible-devices list (ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES) to a list of devices, for rocr,
// gpu and the doctor alike.
package visible

import (
	"fmt"
	"strconv"
	"strings"
)

// TwiceError is the error of a list that names one device twice; the
// runtime reports it as an invalid argument.
type TwiceError struct {
	List  string // the list as given
	Index int    // the device it names twice
}

func (e *TwiceError) Error() string {
	return fmt.Sprintf("visible devices %q name device %d twice", e.List, e.Index)
}

// Select filters items by a visible-devices list such as "1,0" or
// "GPU-uuid": indexes or UUIDs, in the list's order. An empty list hides
// everything; the first entry that matches nothing ends the list.
func Select[T any](items []T, list string, uuid func(T) string) ([]T, error) {
	list = strings.TrimSpace(list)
	out := []T{}
	if list == "" {
		return out, nil
	}
	seen := map[int]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		idx := -1
		if n, err := strconv.Atoi(f); err == nil {
			idx = n
		} else {
			for i, it := range items {
				if u := uuid(it); u != "" && strings.EqualFold(u, f) {
					idx = i
				}
			}
		}
		if idx < 0 || idx >= len(items) {
			break
		}
		if seen[idx] {
			return nil, &TwiceError{List: list, Index: idx}
		}
		seen[idx] = true
		out = append(out, items[idx])
	}
	return out, nil
}

// SelectExcept is Select for items some of which were already
// filtered by the same list (applied reports which: a vendor library read
// the variable itself): those stay, first, and the list indexes the others.
func SelectExcept[T any](items []T, list string, uuid func(T) string, applied func(T) bool) ([]T, error) {
	var own, rest []T
	for _, it := range items {
		if applied(it) {
			own = append(own, it)
		} else {
			rest = append(rest, it)
		}
	}
	rest, err := Select(rest, list, uuid)
	if err != nil {
		return nil, err
	}
	return append(own, rest...), nil
}
