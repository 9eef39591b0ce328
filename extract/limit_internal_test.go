package extract

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLimitedReader: a member of exactly the limit reads whole; one byte more is too big.
func TestLimitedReader(t *testing.T) {
	t.Parallel()
	got, err := io.ReadAll(&limitedReader{r: io.NopCloser(strings.NewReader("abc")), left: 3})
	if err != nil || string(got) != "abc" {
		t.Errorf("member at the limit: %q, %v; want \"abc\", nil", got, err)
	}
	_, err = io.ReadAll(&limitedReader{r: io.NopCloser(strings.NewReader("abcd")), left: 3})
	if !errors.Is(err, errTooBig) || !errors.Is(err, ErrUnreadable) {
		t.Errorf("member past the limit: %v; want errTooBig in ErrUnreadable", err)
	}
}
