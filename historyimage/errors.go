package historyimage

import (
	"errors"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messages"
)

// ErrInvalidImageID is returned by NormalizeID, Cache.Get and Cache.Put for an image identifier that
// is not 8 to 32 hexadecimal characters (after an optional "history_" prefix or a whole
// "[Picture:history_...]" placeholder). It is permanent: the request is wrong, retrying cannot help.
// The edge maps it to contracts.CodeInvalidImageID.
var ErrInvalidImageID = errors.New("historyimage: invalid image identifier")

// ErrNotFound is returned by Cache.Get when no image is cached under the hash: it was never stored,
// or it expired (including the case where the KV index is still there but the Object Store object
// it points to has already expired). It is permanent for the request. The edge maps it to
// contracts.CodeImageNotFound.
var ErrNotFound = errors.New("historyimage: image not found or expired")

// InvalidContextError is returned by Preprocess for a context it cannot take apart: messages that are
// not a JSON list, a message that is neither a [role, content] pair nor an object with a role, a
// context not in the shape of the dialect it was sent as (Options.Dialect: its members, roles and
// parts, dialects.Conversation). (An
// image part whose data is missing or is not base64 is not an error: it is left in place.) Problem names the offending place with a JSON
// path (messages[3].content[1], or messages[3][1][1] for a pair) and what is wrong with it.
//
// It is permanent; the edge maps it to contracts.CodeInvalidRequest with Error() as the message.
type InvalidContextError struct {
	Problem string
}

func (e *InvalidContextError) Error() string { return "invalid context: " + e.Problem }

func invalid(problem string) error { return &InvalidContextError{Problem: problem} }

// Message returns the human-readable text of a wire error code owned by this package
// (contracts.CodeInvalidImageID, contracts.CodeImageNotFound) in locale, from the message
// catalogue: contracts.LocaleEN gives English, anything else (including "" and unknown locales)
// gives Chinese, the default. It returns "" for codes this package does not own.
func Message(code, locale string) string {
	if code != contracts.CodeInvalidImageID && code != contracts.CodeImageNotFound {
		return ""
	}
	return messages.Text(locale, messages.ToolError(code))
}
