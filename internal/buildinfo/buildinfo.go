// Package buildinfo holds the worker's version and commit, set at build time by the Makefile
// (-ldflags "-X .../internal/buildinfo.Version=... -X .../internal/buildinfo.Commit=...").
package buildinfo

import "runtime/debug"

// Version is the worker's semantic version (a NATS micro service needs one).
var Version = "0.1.0-dev"

// Commit is the git commit the worker was built from, or "unknown".
var Commit = ""

// CommitOrUnknown returns Commit, else the VCS revision Go stamped into the binary, else "unknown".
func CommitOrUnknown() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}
