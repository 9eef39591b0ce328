//go:build !unix

package historyimage_test

import "time"

// cpuTime is not measured here: the CPU metrics read 0.
func cpuTime() time.Duration { return 0 }
