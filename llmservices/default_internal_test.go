package llmservices

import "testing"

// TestDefaultIsValid fails the build's tests, rather than silently serving text only, if the
// embedded file is ever broken.
func TestDefaultIsValid(t *testing.T) {
	if _, err := Parse(defaultJSON, "default.json"); err != nil {
		t.Fatal(err)
	}
}
