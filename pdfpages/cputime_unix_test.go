//go:build unix

package pdfpages_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) this process and its waited-for children (pdftoppm)
// used so far: on a loaded machine a benchmark's wall time says more about the other processes
// than about it; its CPU time does not.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
