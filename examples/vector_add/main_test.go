package main

import "testing"

func TestVectorAdd(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
