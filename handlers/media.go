package handlers

import "github.com/agentworks/artifact-worker/contracts"

// media validates the optional "media" field: where the reply carries the media. Absent: both.
func media(s string) (string, error) {
	switch s {
	case "":
		return contracts.MediaBoth, nil
	case contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly:
		return s, nil
	}
	return "", invalid("media", "media %q is not supported (use %q, %q or %q)", s, contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly)
}
