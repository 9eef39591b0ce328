package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Capabilities is the set of input capabilities of the model an artifact is routed to
// (contracts.CapText, CapVision, CapFile, CapAudio, CapVideo). The zero value holds text only.
// A Capabilities is immutable and safe for concurrent use.
type Capabilities struct {
	set map[string]struct{}
}

// NewCapabilities builds a set from capability names; names are trimmed and lower-cased, unknown
// names are kept (and never match a need), duplicates are ignored.
func NewCapabilities(names ...string) Capabilities {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			set[n] = struct{}{}
		}
	}
	return Capabilities{set: set}
}

// Has reports whether the set holds the capability. Text is always held: every model reads text.
func (c Capabilities) Has(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == contracts.CapText {
		return true
	}
	_, ok := c.set[name]
	return ok
}

// NeededCapability is the capability a model needs to read an artifact of the given kind
// (KindText or a contracts.Binary* kind): documents and other binaries travel as file parts.
func NeededCapability(kind string) string {
	switch kind {
	case KindText:
		return contracts.CapText
	case contracts.BinaryImage:
		return contracts.CapVision
	case contracts.BinaryAudio:
		return contracts.CapAudio
	case contracts.BinaryVideo:
		return contracts.CapVideo
	default: // documents and other binaries travel as file parts
		return contracts.CapFile
	}
}
