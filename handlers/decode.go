package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/rawjson"
	"github.com/agentworks/artifact-worker/routing"
)

// This file is the one place where request bodies are decoded and checked before a handler looks
// at them: the envelope (DecodeEnvelope, for the pipeline) and each subject's fields (decode).

// otherSpellings lists, per subject, the request fields that the designs spell
// differently from the contract; the worker accepts them as the same field. The routing design
// passes serviceId to routeContent; the workspace-ID design's write_file passes mimeType, and its workspace metadata
// names workspaceId, agentId and messageId. Any other spelling of a known field (one that differs
// only in case, '_' or '-': requestId, imageMd5, contentBase64, Ref, ...) is answered
// invalid_request naming it, so that nothing a runtime sends is silently ignored because of how
// it is spelled. The known fields of a subject are the JSON names of its request type, so a field
// added to a request type is covered without touching this table.
var otherSpellings = map[string]map[string]string{
	contracts.SubjectGetArtifact: {"serviceId": "service_id"},
	contracts.SubjectFileWritten: {"workspaceId": "workspace_id", "mimeType": "mime_type", "agentId": "agent_id", "messageId": "message_id"},
}

// maxLen bounds string fields of every request type by their JSON name (see contracts/limits.go;
// workspace_id is checked by workspace.ValidateWorkspaceID, path by workspace.CleanPath).
var maxLen = map[string]int{
	"request_id": contracts.MaxIDLen,
	"agent_id":   contracts.MaxIDLen,
	"message_id": contracts.MaxIDLen,
	"service_id": contracts.MaxIDLen,
	"ref":        contracts.MaxRefLen,
	"id":         contracts.MaxRefLen,
	"mime_type":  contracts.MaxMIMETypeLen,
	"pages":      contracts.MaxPagesLen,
}

// invalid returns an invalid_request error naming field.
func invalid(field, format string, args ...any) error {
	return &contracts.Error{Code: contracts.CodeInvalidRequest, Message: fmt.Sprintf(format, args...), Field: field}
}

// DecodeEnvelope returns the request_id of a request body. It is the pipeline's envelope decoder
// (handling.EnvelopeDecoder): a body it rejects is poison, answered and dead-lettered. The body
// must be a JSON object whose request_id is a non-empty string of valid UTF-8 of at most
// contracts.MaxIDLen bytes; the error is an invalid_request *contracts.Error naming request_id, or
// the other spelling the body used instead (requestId, ...).
func DecodeEnvelope(body []byte) (string, error) {
	var env struct {
		RequestID json.RawMessage `json:"request_id"`
	}
	if err := json.Unmarshal(envelopeOf(body), &env); err != nil {
		return "", invalid("", "request body is not a JSON object: %v", err)
	}
	raw := env.RequestID
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		for _, m := range rawjson.Object(body) {
			if m.Name != "request_id" && normalize(m.Name) == "requestid" {
				return "", invalid(m.Name, "%s is not a field of contract v1: the field is spelled \"request_id\"", quote(m.Name))
			}
		}
		return "", invalid("request_id", "request_id is required")
	}
	if raw[0] != '"' {
		return "", invalid("request_id", "field \"request_id\" must be a JSON string, not %s", rawjson.TypeName(raw))
	}
	if !rawjson.GoodText(raw[1 : len(raw)-1]) {
		return "", invalid("request_id", "field \"request_id\" is not valid UTF-8")
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", invalid("request_id", "field \"request_id\" is not a JSON string: %v", err)
	}
	if len(id) > contracts.MaxIDLen {
		return "", invalid("request_id", "field \"request_id\" is %d bytes, at most %d allowed", len(id), contracts.MaxIDLen)
	}
	return id, nil
}

// envelopeOf returns, when body is a valid JSON object, an object of only the members that
// encoding/json would decode into DecodeEnvelope's request_id (its name exactly or, as encoding/json
// matches names, equal under case folding), in order: decoding it gives what decoding body gives,
// without a second pass of encoding/json's scanner over megabytes of other members. Otherwise it
// returns body, for encoding/json to say what is wrong with it.
func envelopeOf(body []byte) []byte {
	if !rawjson.Valid(body) {
		return body
	}
	ms := rawjson.Object(body)
	if ms == nil {
		return body // not an object
	}
	env := []byte{'{'}
	for _, m := range ms {
		if strings.EqualFold(m.Name, "request_id") {
			if len(env) > 1 {
				env = append(env, ',')
			}
			env = append(append(append(env, m.Key...), ':'), m.Value...)
		}
	}
	return append(env, '}')
}

// decode unmarshals the request body of subject into v, a pointer to the subject's request type,
// and checks it: a field of the wrong type, a string anywhere in the body that is not valid UTF-8
// (encoding/json would replace it by U+FFFD), another spelling of a known field (accepted when
// otherSpellings lists it, else refused) and a field over its length limit are invalid_request
// naming the field. Unknown fields are accepted (contract v1 grows by optional fields).
func decode(subject string, body []byte, v any) error {
	if err := unmarshal(body, v); err != nil {
		if errors.Is(err, errTrailingData) {
			return invalid("", "request body has data after the JSON object")
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalid(te.Field, "field %q must be a JSON %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return invalid("", "request body is not valid JSON: %v", err)
	}
	ms := rawjson.Object(body)
	for _, m := range ms {
		if !rawjson.GoodText(m.Key[1 : len(m.Key)-1]) {
			return invalid("", "a member name of the request body is not valid UTF-8 text")
		}
		if path, bad := rawjson.BadText(m.Value, m.Name); bad {
			return invalid(m.Name, "%s is not valid UTF-8 text: send strings as UTF-8 (binary content as content_base64)", path)
		}
	}
	if err := otherSpelling(subject, ms, v); err != nil {
		return err
	}
	return checkLengths(v)
}

// errTrailingData is unmarshal's error for a body with more than one JSON value.
var errTrailingData = errors.New("data after the JSON value")

// unmarshal decodes the one JSON value of body into v as a json.Decoder does, and refuses data after
// it with errTrailingData; other errors are encoding/json's.
func unmarshal(body []byte, v any) error {
	if light, fill := withoutRawValues(body, v); light != nil {
		err := json.Unmarshal(light, v)
		fill()
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	// dec.More reports false for a stray '}' or ']': only white space may follow the value.
	if len(bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n")) != 0 {
		return errTrailingData
	}
	return nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// withoutRawValues spares encoding/json the largest members of a request (the context of
// context.preprocess): when body is one valid JSON object and some member is named exactly like a
// json.RawMessage field of the struct v points to, it returns body with the values of those members
// replaced by null, and fill, which sets each such field to the value of the last member of its
// name, as decoding body would have. encoding/json decodes the rest exactly as it decodes body:
// a RawMessage takes any value without error and the replaced members decode into nothing else.
// light is nil (decode body itself) when body is not a valid object, nothing is to be replaced, or
// a member is a case-folded spelling of such a field (encoding/json would decode it into the field
// too; otherSpelling refuses it later).
func withoutRawValues(body []byte, v any) (light []byte, fill func()) {
	rv := reflect.ValueOf(v).Elem()
	var raw []int // indexes of the RawMessage fields
	for i := range rv.NumField() {
		if rv.Type().Field(i).Type == rawMessageType && jsonName(rv.Type().Field(i)) != "" {
			raw = append(raw, i)
		}
	}
	if len(raw) == 0 || !rawjson.Valid(body) {
		return nil, nil
	}
	ms := rawjson.Object(body)
	last := make(map[int]rawjson.Member, len(raw)) // field index -> last member of its name
	replace := map[int]bool{}                      // member indexes
	for k, m := range ms {
		for _, i := range raw {
			name := jsonName(rv.Type().Field(i))
			switch {
			case m.Name == name:
				last[i] = m
				replace[k] = true
			case strings.EqualFold(m.Name, name):
				return nil, nil
			}
		}
	}
	if len(replace) == 0 {
		return nil, nil
	}
	light = make([]byte, 0, 1024)
	prev := 0
	for k, m := range ms {
		if replace[k] {
			light = append(light, body[prev:m.At]...)
			light = append(light, "null"...)
			prev = m.At + len(m.Value)
		}
	}
	light = append(light, body[prev:]...)
	return light, func() {
		for i, m := range last {
			rv.Field(i).SetBytes(bytes.Clone(m.Value))
		}
	}
}

// otherSpelling applies the accepted other spellings of known fields and refuses the rest.
func otherSpelling(subject string, ms []rawjson.Member, v any) error {
	known := knownFields(reflect.TypeOf(v).Elem())
	present := make(map[string][]byte, len(ms))
	for _, m := range ms {
		present[m.Name] = m.Value
	}
	for _, m := range ms {
		field, ok := known[normalize(m.Name)]
		if !ok || field == m.Name {
			continue
		}
		if otherSpellings[subject][m.Name] != field {
			return invalid(m.Name, "%s is not a field of %s requests: the field is spelled %q", quote(m.Name), subject, field)
		}
		if same, ok := present[field]; ok {
			if !bytes.Equal(compact(same), compact(m.Value)) {
				return invalid(m.Name, "%q and %q are the same field with different values: send one", m.Name, field)
			}
			continue
		}
		one := append(append([]byte(`{"`+field+`":`), m.Value...), '}')
		if err := json.Unmarshal(one, v); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return invalid(m.Name, "field %q must be a JSON %s, not %s", m.Name, jsonKind(te.Type.Kind().String()), te.Value)
			}
			return invalid(m.Name, "field %q: %v", m.Name, err)
		}
	}
	return nil
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// checkLengths applies maxLen to the string fields of the struct v points to.
func checkLengths(v any) error {
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.Kind() != reflect.String {
			continue
		}
		name := jsonName(rv.Type().Field(i))
		if limit, ok := maxLen[name]; ok && f.Len() > limit {
			return invalid(name, "field %q is %d bytes, at most %d allowed", name, f.Len(), limit)
		}
	}
	return nil
}

var knownCache sync.Map // reflect.Type -> map[string]string

// knownFields maps the normalized JSON names of struct type t's fields to the names themselves.
func knownFields(t reflect.Type) map[string]string {
	if k, ok := knownCache.Load(t); ok {
		return k.(map[string]string)
	}
	k := map[string]string{}
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			k[normalize(name)] = name
		}
	}
	knownCache.Store(t, k)
	return k
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// normalize folds the spellings of a field name together: case, '_' and '-' do not count.
func normalize(name string) string {
	if len(name) > 64 {
		return "" // no field is named like this
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return toLower(r)
	}, name)
}

func toLower(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// quote quotes input for an error message, cut to its first 64 bytes (at a rune boundary).
func quote(s string) string {
	const maxQuoted = 64
	if len(s) <= maxQuoted {
		return fmt.Sprintf("%q", s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:cut], len(s))
}

// quotedList writes names as "\"a\" or \"b\"" (an error's list of what is accepted).
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "bool":
		return "boolean"
	default:
		return "number"
	}
}

// locale validates an optional locale, defaulting to Chinese as in the design.
func locale(s string) (string, error) {
	if s == "" {
		return contracts.DefaultLocale, nil
	}
	if contracts.KnownLocale(s) {
		return s, nil
	}
	return "", invalid("locale", "locale %s is not supported (use %s)", quote(s), quotedList(contracts.Locales))
}

// dialect validates an optional dialect with routing.ParseDialect, the one validator of dialects.
func dialect(s string) (string, error) {
	d, err := routing.ParseDialect(s)
	if err != nil {
		return "", invalid("dialect", "dialect %s is not supported (use one of %s)", quote(s), strings.Join(contracts.Dialects, ", "))
	}
	return d, nil
}

// presentation validates the optional locale, dialect and media of a request that returns message
// parts, in that order: the first bad one is the error.
func presentation(loc, dia, med string) (string, string, string, error) {
	l, err := locale(loc)
	if err != nil {
		return "", "", "", err
	}
	d, err := dialect(dia)
	if err != nil {
		return "", "", "", err
	}
	m, err := media(med)
	if err != nil {
		return "", "", "", err
	}
	return l, d, m, nil
}
