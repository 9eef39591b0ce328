package routing

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/imaging"
)

// TestImageActionsMatchContract: Route copies imaging's Result.Actions into
// contracts.ImageProcessing.Actions as they are, so imaging's action names must be the contract's.
func TestImageActionsMatchContract(t *testing.T) {
	t.Parallel()
	for _, p := range []struct{ imaging, contract string }{
		{imaging.ActionOriented, contracts.ImageOriented},
		{imaging.ActionFirstFrame, contracts.ImageFirstFrame},
		{imaging.ActionConverted, contracts.ImageConverted},
		{imaging.ActionDownscaled, contracts.ImageDownscaled},
		{imaging.ActionReencoded, contracts.ImageReencoded},
	} {
		if p.imaging != p.contract {
			t.Errorf("imaging action %q, contract action %q: they must be the same string", p.imaging, p.contract)
		}
	}
}
