//go:build unix && !linux

package miniotest

import "syscall"

// sysProcAttr puts the server in its own process group so Stop can kill everything it started.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
