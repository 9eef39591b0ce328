//go:build unix

package historyimage_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used so far: the nats-server of the
// benchmarks runs in the process, so its work for a put counts too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
