package handlers

import (
	"encoding/json"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
)

// encodeResult writes a contracts.GetArtifactResult as JSON. json.Marshal of the struct would pass
// over the assembly's parts twice (encoding/json validates and compacts embedded raw JSON), and those
// parts carry the artifact's base64; here the route result is encoded once and it, the usage and the
// assembly's parts, already compact JSON from routing, are copied once into the reply. media (contracts.Media*) says which half
// carries the media: the route result's imageUrl/file, the assembly, or both.
func encodeResult(r contracts.ContentRouteResult, u contracts.Usage, a contracts.Assembly, media string, model *contracts.ModelDecision) (handling.Encoded, error) {
	if media == contracts.MediaAssembly {
		r.ImageURL, r.File = nil, nil
		if r.Pages != nil {
			p := *r.Pages
			p.Images = nil
			r.Pages = &p
		}
	}
	route, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	if len(route) < 2 || route[len(route)-1] != '}' { // a struct encodes as an object: cannot happen
		return nil, fmt.Errorf("encode result: %.40q is not a JSON object", route)
	}
	usage, err := json.Marshal(u)
	if err != nil {
		return nil, fmt.Errorf("encode usage: %w", err)
	}
	var decision []byte
	if model != nil {
		if decision, err = json.Marshal(model); err != nil {
			return nil, fmt.Errorf("encode model: %w", err)
		}
	}
	var limits []byte
	if a.RequestLimits != nil && media != contracts.MediaResult {
		if limits, err = json.Marshal(a.RequestLimits); err != nil {
			return nil, fmt.Errorf("encode request limits: %w", err)
		}
	}
	// Sized for everything appended below: a buffer grown on the way (by the request limits, last)
	// would copy the media's base64 once more and allocate twice its size.
	size := len(route) + len(usage) + len(decision) + 32
	if media != contracts.MediaResult {
		size += len(a.ToolContent) + len(limits) + 128
		for _, m := range a.FollowUp {
			size += len(m.Content) + len(m.Parts) + len(m.Role) + 32
		}
	}
	b := make([]byte, 0, size)
	b = append(b, route[:len(route)-1]...)
	b = append(b, `,"usage":`...)
	b = append(b, usage...)
	if decision != nil {
		b = append(b, `,"model":`...)
		b = append(b, decision...)
	}
	if media == contracts.MediaResult {
		return append(b, '}'), nil
	}
	dialect, _ := json.Marshal(a.Dialect)
	b = append(b, `,"assembly":{"dialect":`...)
	b = append(b, dialect...)
	b = append(b, `,"toolContent":`...)
	b = appendRaw(b, a.ToolContent)
	if len(a.FollowUp) > 0 {
		b = append(b, `,"followUp":[`...)
		for i, m := range a.FollowUp {
			if i > 0 {
				b = append(b, ',')
			}
			role, _ := json.Marshal(m.Role)
			b = append(b, `{"role":`...)
			b = append(b, role...)
			if len(m.Content) > 0 { // openai-chat
				b = append(b, `,"content":`...)
				b = appendRaw(b, m.Content)
			}
			if len(m.Parts) > 0 { // gemini
				b = append(b, `,"parts":`...)
				b = appendRaw(b, m.Parts)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if limits != nil {
		b = append(b, `,"requestLimits":`...)
		b = append(b, limits...)
	}
	return append(b, "}}"...), nil
}

func appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}
