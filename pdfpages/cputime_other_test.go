//go:build !unix

package pdfpages_test

import "time"

// cpuTime is not measured here: the cpu-ms/op metrics read 0.
func cpuTime() time.Duration { return 0 }
