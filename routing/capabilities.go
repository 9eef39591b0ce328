package routing

import (
	"slices"
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

// Names returns the capabilities in the set, sorted.
func (c Capabilities) Names() []string {
	names := make([]string, 0, len(c.set))
	for n := range c.set {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
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

// Without returns a copy of the set without the named capabilities.
func (c Capabilities) Without(names ...string) Capabilities {
	drop := NewCapabilities(names...)
	kept := make([]string, 0, len(c.set))
	for n := range c.set {
		if _, ok := drop.set[n]; !ok {
			kept = append(kept, n)
		}
	}
	return NewCapabilities(kept...)
}
