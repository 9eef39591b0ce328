// Package modroot finds the repository's root, the directory holding go.mod, from a working
// directory inside it: a test's package directory, or wherever `go generate` runs a generator.
package modroot

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrNotFound means no directory from the working directory up holds a go.mod.
var ErrNotFound = errors.New("no go.mod above the working directory")

// Find walks up from the working directory to the nearest directory holding go.mod.
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotFound
		}
		dir = parent
	}
}
