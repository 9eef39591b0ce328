package miniotest

import "syscall"

// sysProcAttr puts the server in its own process group (so Stop can kill everything it started)
// and has the kernel kill it if the test binary dies without running its cleanups.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
