package handlers

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messages"
	"github.com/agentworks/artifact-worker/routing"
)

// CompleteToolError gives every error reply of a tool subject the tool result the model gets
// instead of content (contracts.Error.Assembly), in the request's dialect and locale, so that a
// runtime forwards it as it forwards a result's assembly, without writing text per error code.
// It implements handling.ErrorCompleter; errors of other subjects are returned unchanged.
//
//   - tool.get_artifact: the routing design's error object as the text,
//     {"error":"artifact_not_found","ref":"artifact:x","message":"工件不存在或已被删除"}, for every code
//     (ref when known); error.message of artifact_not_found is the same localised sentence.
//   - tool.get_history_image: the history-image design's text blocks, [{"type":"text","text":"无效的图片标识符"}],
//     [{"type":"text","text":"图片不存在或已过期"}], and a sentence of the same kind for other codes.
//
// The dialect and locale are read from body when they are valid; otherwise (the body is unreadable,
// claim-checked and not resolved, or the value is what the error is about) openai-chat and zh, the
// defaults. The assembly is built by routing.AssembleText, the same path as a text-only result.
func CompleteToolError(subject string, body []byte, e *contracts.Error) *contracts.Error {
	if e == nil || (subject != contracts.SubjectGetArtifact && subject != contracts.SubjectGetHistoryImage) {
		return e
	}
	loc, dia := lenientPresentation(body)
	out := *e
	if out.Ref == "" && subject == contracts.SubjectGetArtifact && (e.Code == contracts.CodeExpired || e.Code == contracts.CodeDuplicateRequest) {
		// An error of a request that never ran (expired, or a duplicate the front refused) names
		// the ref too, as the handler's own errors do; a request the handler refused as invalid
		// keeps the handler's answer.
		out.Ref = lenientRef(body)
	}
	sentence := toolErrorSentence(e, loc)
	text := sentence
	if subject == contracts.SubjectGetArtifact {
		if e.Code == contracts.CodeArtifactNotFound {
			out.Message = sentence
		}
		text = artifactErrorText(e.Code, out.Ref, sentence)
	}
	a := routing.AssembleText(text, dia)
	out.Assembly = &a
	return &out
}

// lenientPresentation reads locale and dialect from a request body, falling back to the defaults
// for anything missing, malformed or unsupported.
func lenientPresentation(body []byte) (loc, dia string) {
	var p struct {
		Locale  json.RawMessage `json:"locale"`
		Dialect json.RawMessage `json:"dialect"`
	}
	_ = json.Unmarshal(body, &p)
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	loc, err := locale(str(p.Locale))
	if err != nil {
		loc = contracts.DefaultLocale
	}
	dia, err = dialect(str(p.Dialect))
	if err != nil {
		dia = contracts.DefaultDialect
	}
	return loc, dia
}

// lenientRef is the ref of a get_artifact request body: "" when the body is unreadable or
// claim-checked, the ref is not a string, or it is longer than contracts.MaxRefLen or not UTF-8
// (what get_artifact itself would refuse to echo).
func lenientRef(body []byte) string {
	var r struct {
		Ref json.RawMessage `json:"ref"`
	}
	var ref string
	// encoding/json turns invalid UTF-8 and lone surrogates into U+FFFD: such a ref is not echoed.
	if json.Unmarshal(body, &r) != nil || json.Unmarshal(r.Ref, &ref) != nil || len(ref) > contracts.MaxRefLen ||
		!utf8.ValidString(ref) || strings.ContainsRune(ref, utf8.RuneError) {
		return ""
	}
	return ref
}

// artifactErrorText is the routing design's error object for get_artifact, as the model reads it.
func artifactErrorText(code, ref, message string) string {
	v := struct {
		Error   string `json:"error"`
		Ref     string `json:"ref,omitempty"`
		Message string `json:"message"`
	}{code, ref, message}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings only: cannot fail
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// toolErrorSentence is the sentence for e in locale, from the message catalogue (the history-image
// codes' and artifact_not_found's are the design's, docs/design.md, "Errors"): invalid_request
// names the field, a code without its own sentence is named.
func toolErrorSentence(e *contracts.Error, loc string) string {
	s, ok := messages.Lookup(loc, messages.ToolError(e.Code))
	if !ok {
		return messages.Format(loc, messages.ToolFailed, e.Code)
	}
	if e.Code == contracts.CodeInvalidRequest && e.Field != "" {
		return s + messages.Text(loc, messages.FieldSeparator) + e.Field
	}
	return s
}
