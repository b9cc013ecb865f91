package main

import (
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestFuse(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
