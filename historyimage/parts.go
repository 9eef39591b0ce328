package historyimage

import (
	"bytes"
	"errors"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/mediaformat"
)

// textShape is the shape of the text part that replaces a media part: the text part of the same
// API family, so that the list it sits in stays valid.
type textShape int

const (
	typedText textShape = iota // {"type":"text","text":...}: OpenAI chat, Anthropic, LangChain
	inputText                  // {"type":"input_text","text":...}: OpenAI Responses
	bareText                   // {"text":...}: Gemini, Bedrock Converse
)

// mediaPart is a part that carries media as inline base64.
type mediaPart struct {
	// data is the base64 text exactly as it appears in the part (after JSON unescaping); it usually
	// aliases the request and must not be modified.
	data []byte
	// mime is the declared MIME type ("" when the part declares none); kind is the declared kind
	// (contracts.BinaryImage, BinaryDocument, BinaryAudio, BinaryVideo; "" when unknown).
	mime, kind string
	filename   string
	shape      textShape
	name       span // a Bedrock document's name (its JSON string), when it has one
	// family is the dialect whose blocks the part is written in (contracts.Dialect*), where the
	// part tells: what page images replacing it are written as (Options.Pages).
	family string
}

// partClass is what a content part is, as far as preprocessing cares.
type partClass int

const (
	partOther      partClass = iota // text, tool calls and every other known part without inline media
	partMedia                       // media with inline base64 data
	partRef                         // media by reference (URL, file id, S3 location): left alone
	partToolResult                  // a tool result whose own parts are scanned (nested)
	partFuncResp                    // a Gemini functionResponse whose parts are scanned (nested)
	partBad                         // a media part that is malformed: left alone, reported (reason)
	partUnknown                     // a part of a type no dialect defines: left alone, reported (reason)
)

// partInfo is the classification of one content part.
type partInfo struct {
	class  partClass
	media  mediaPart
	reason string
	// nested is the list of parts inside a tool result or a functionResponse (zero when it has
	// none, or it is a string); nestedPath is its JSON path.
	nested     span
	nestedPath string
	// member is the whole "parts" member (key to value) of a functionResponse.
	member span
}

// partFields are the members of a typed part (one with a "type") that matter here.
type partFields struct {
	typ, imageURL, source, sourceType, data, mimeType, base64, url, fileID, id, file, inputAudio,
	fileData, fileURL, filename, name, extras, metadata, content, title, mimeTypeJS span
}

// knownTypes are the part types of every dialect that carry no inline media of their own.
var knownTypes = map[string]bool{
	"text": true, "input_text": true, "output_text": true, "refusal": true, "reasoning": true,
	"summary_text": true, "tool_use": true, "tool_call": true, "tool_call_chunk": true,
	"invalid_tool_call": true, "server_tool_use": true, "server_tool_call": true,
	"server_tool_call_chunk": true, "server_tool_result": true, "mcp_tool_use": true,
	"mcp_tool_result": true, "thinking": true, "redacted_thinking": true, "web_search_tool_result": true,
	"web_fetch_tool_result": true, "code_execution_tool_result": true,
	"bash_code_execution_tool_result": true, "text_editor_code_execution_tool_result": true,
	"tool_search_tool_result": true, "search_result": true, "container_upload": true, "citation": true,
	"non_standard": true, "text-plain": true, "function_call": true, "function_call_output": true,
}

// untypedOther are the members that make an untyped part (Gemini, Bedrock) a known part
// without inline media.
var untypedOther = []string{"text", "functionCall", "function_call", "executableCode", "executable_code",
	"codeExecutionResult", "code_execution_result", "thought", "thoughtSignature", "thought_signature",
	"toolUse", "cachePoint", "guardContent", "reasoningContent", "citationsContent", "videoMetadata",
	"video_metadata"}

// classify tells what the content part at s is. path is its JSON path, for reasons and nested paths.
//
// Inline media, in every dialect's shape:
//
//	OpenAI chat  {"type":"image_url","image_url":{"url":"data:image/png;base64,..."}} (or "image_url":"data:...")
//	             {"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,..."}}
//	             {"type":"input_audio","input_audio":{"data":"...","format":"wav"}}
//	Responses    {"type":"input_image","image_url":"data:..."}, {"type":"input_file","filename":...,"file_data":"data:..."}
//	Anthropic    {"type":"image"|"document","source":{"type":"base64","media_type":"image/png","data":"..."}}
//	LangChain    {"type":"image"|"file"|"audio"|"video","source_type":"base64","data":"...","mime_type":...}
//	             v1 {"type":"image"|"file"|"audio"|"video","base64":"...","mime_type":...,"extras":{"filename":...}}
//	Gemini       {"inlineData":{"mimeType":"image/png","data":"..."}} (or inline_data / mime_type)
//	Bedrock      {"image"|"document"|"video":{"format":"png","name":...,"source":{"bytes":"..."}}}
//
// Containers: Anthropic {"type":"tool_result","content":[...]}, Bedrock {"toolResult":{"content":[...]}},
// Gemini {"functionResponse":{...,"parts":[...]}}.
func (b rawJSON) classify(s span, path string) partInfo {
	if b.kind(s) != '{' {
		return partInfo{class: partOther} // a bare string part (LangChain), or the dialect check's business
	}
	var f partFields
	b.pick(s.start, member{"type", &f.typ}, member{"image_url", &f.imageURL}, member{"source", &f.source},
		member{"source_type", &f.sourceType}, member{"data", &f.data}, member{"mime_type", &f.mimeType},
		member{"base64", &f.base64}, member{"url", &f.url}, member{"file_id", &f.fileID}, member{"id", &f.id},
		member{"file", &f.file}, member{"input_audio", &f.inputAudio}, member{"file_data", &f.fileData},
		member{"file_url", &f.fileURL}, member{"filename", &f.filename}, member{"name", &f.name},
		member{"extras", &f.extras}, member{"metadata", &f.metadata}, member{"content", &f.content},
		member{"title", &f.title}, member{"mimeType", &f.mimeTypeJS})
	if !f.typ.ok() {
		return b.classifyUntyped(s, path)
	}
	typ, isStr := b.str(f.typ)
	if !isStr {
		return partInfo{class: partUnknown, reason: path + ": part type is not a string"}
	}
	switch typ {
	case "image_url":
		return b.dataURLPart(f.imageURL, path+".image_url", contracts.BinaryImage, "", typedText, true)
	case "input_image":
		if !f.imageURL.ok() && (f.fileID.ok() || f.fileURL.ok()) {
			return partInfo{class: partRef}
		}
		return b.dataURLPart(f.imageURL, path+".image_url", contracts.BinaryImage, "", inputText, false)
	case "input_file":
		if !f.fileData.ok() {
			return refOrBad(f.fileID.ok() || f.fileURL.ok(), path, "file part has no file_data, file_id or file_url")
		}
		name, _ := b.str(f.filename)
		return family(b.dataURLPart(f.fileData, path+".file_data", contracts.BinaryDocument, name, inputText, false), contracts.DialectOpenAIResponses)
	case "file":
		if f.file.ok() {
			return b.openAIFile(f.file, path+".file")
		}
		return b.langchainBlock(f, path, contracts.BinaryDocument)
	case "input_audio":
		return b.openAIAudio(f.inputAudio, path+".input_audio")
	case "image", "document":
		if f.source.ok() {
			p := b.anthropicSource(f.source, path+".source", kindOfType(typ))
			if typ == "document" {
				p.media.filename, _ = b.str(f.title)
			}
			return p
		}
		return b.langchainBlock(f, path, kindOfType(typ))
	case "audio", "video":
		return b.langchainBlock(f, path, kindOfType(typ))
	case "tool_result":
		p := partInfo{class: partToolResult}
		if f.content.ok() && b.kind(f.content) == '[' {
			p.nested, p.nestedPath = f.content, path+".content"
		}
		return p
	}
	if knownTypes[typ] {
		return partInfo{class: partOther}
	}
	return partInfo{class: partUnknown, reason: path + ": unknown part type " + quoted(typ)}
}

// classifyUntyped classifies a part without a "type": Gemini parts and Bedrock content blocks.
func (b rawJSON) classifyUntyped(s span, path string) partInfo {
	var inline, inlineSnake, fr, frSnake, image, document, video, toolResult, fileData, fileDataSnake span
	other := false
	_ = b.fields(s.start, func(key []byte, start, end int) error {
		v := span{start, end}
		switch k := rawKey(key); k {
		case "inlineData":
			inline = v
		case "inline_data":
			inlineSnake = v
		case "functionResponse":
			fr = v
		case "function_response":
			frSnake = v
		case "image":
			image = v
		case "document":
			document = v
		case "video":
			video = v
		case "toolResult":
			toolResult = v
		case "fileData":
			fileData = v
		case "file_data":
			fileDataSnake = v
		default:
			for _, o := range untypedOther {
				if k == o {
					other = true
				}
			}
		}
		return nil
	})
	switch {
	case inline.ok() || inlineSnake.ok():
		key, v := "inlineData", inline
		if !v.ok() {
			key, v = "inline_data", inlineSnake
		}
		return b.geminiBlob(v, path+"."+key)
	case fr.ok() || frSnake.ok():
		key, v := "functionResponse", fr
		if !v.ok() {
			key, v = "function_response", frSnake
		}
		p := partInfo{class: partFuncResp}
		if b.kind(v) == '{' {
			_ = b.fields(v.start, func(k []byte, start, end int) error {
				if keyIs(k, "parts") && b[start] == '[' {
					p.nested, p.nestedPath = span{start, end}, path+"."+key+".parts"
					p.member = span{cap(b) - cap(k), end} // k is b[keyStart:...]
				}
				return nil
			})
		}
		return p
	case toolResult.ok():
		p := partInfo{class: partToolResult}
		if b.kind(toolResult) == '{' {
			var content span
			b.pick(toolResult.start, member{"content", &content})
			if content.ok() && b.kind(content) == '[' {
				p.nested, p.nestedPath = content, path+".toolResult.content"
			}
		}
		return p
	case image.ok():
		return b.bedrockBlock(image, path+".image", contracts.BinaryImage)
	case document.ok():
		return b.bedrockBlock(document, path+".document", contracts.BinaryDocument)
	case video.ok():
		return b.bedrockBlock(video, path+".video", contracts.BinaryVideo)
	case fileData.ok() || fileDataSnake.ok():
		return partInfo{class: partRef}
	case other:
		return partInfo{class: partOther}
	}
	return partInfo{class: partUnknown, reason: path + ": part of no known shape (no type, text, inlineData, image, document, toolResult, ...)"}
}

func refOrBad(ref bool, path, why string) partInfo {
	if ref {
		return partInfo{class: partRef}
	}
	return partInfo{class: partBad, reason: path + ": " + why}
}

func bad(path, why string) partInfo { return partInfo{class: partBad, reason: path + ": " + why} }

// dataURLPart reads a part whose data is a data URL in the string at u (or, when object is set,
// in u's "url" member, as OpenAI chat's image_url allows). A URL that is not a data URL is a
// reference.
func (b rawJSON) dataURLPart(u span, path, kind, filename string, shape textShape, object bool) partInfo {
	if object && u.ok() && b.kind(u) == '{' {
		var url span
		b.pick(u.start, member{"url", &url})
		u, path = url, path+".url"
	}
	raw, isStr := b.strBytes(u)
	if !isStr || len(raw) == 0 {
		return bad(path, "media part has no URL or data")
	}
	mt, data, err := mediaformat.CutDataURL(raw)
	switch {
	case errors.Is(err, mediaformat.ErrNotDataURL):
		return partInfo{class: partRef} // http(s) or another reference: left alone
	case err != nil:
		return bad(path, err.Error())
	}
	mime := string(mt)
	k := mediaformat.PartKind(mime)
	if k == "" {
		k = kind
	}
	return partInfo{class: partMedia, media: mediaPart{data: data, mime: mime, kind: k, filename: filename, shape: shape}}
}

// openAIFile reads OpenAI chat's {"file":{"filename","file_data","file_id"}}.
func (b rawJSON) openAIFile(file span, path string) partInfo {
	if b.kind(file) != '{' {
		return bad(path, "file is not an object")
	}
	var data, id, name span
	b.pick(file.start, member{"file_data", &data}, member{"file_id", &id}, member{"filename", &name})
	if !data.ok() {
		return refOrBad(id.ok(), path, "file part has no file_data or file_id")
	}
	n, _ := b.str(name)
	return family(b.dataURLPart(data, path+".file_data", contracts.BinaryDocument, n, typedText, false), contracts.DialectOpenAIChat)
}

// openAIAudio reads OpenAI chat's {"input_audio":{"data","format"}}.
func (b rawJSON) openAIAudio(a span, path string) partInfo {
	if !a.ok() || b.kind(a) != '{' {
		return bad(path, "input_audio is not an object")
	}
	var data, format span
	b.pick(a.start, member{"data", &data}, member{"format", &format})
	raw, isStr := b.strBytes(data)
	if !isStr || len(raw) == 0 {
		return bad(path, "audio part has no data")
	}
	f, _ := b.str(format)
	mime := ""
	switch strings.ToLower(f) {
	case "wav":
		mime = "audio/wav"
	case "mp3":
		mime = "audio/mpeg"
	}
	return partInfo{class: partMedia, media: mediaPart{data: raw, mime: mime, kind: contracts.BinaryAudio, shape: typedText}}
}

// anthropicSource reads an Anthropic image or document source.
func (b rawJSON) anthropicSource(src span, path, kind string) partInfo {
	if b.kind(src) != '{' {
		return bad(path, "source is not an object")
	}
	var typ, data, media span
	b.pick(src.start, member{"type", &typ}, member{"data", &data}, member{"media_type", &media})
	if t, _ := b.str(typ); t != "base64" {
		return partInfo{class: partRef} // url, file, text, content: no inline base64
	}
	return family(b.base64Field(data, media, path+".data", kind, "", typedText), contracts.DialectAnthropic)
}

// langchainBlock reads a LangChain standard block (v0 source_type or v1 base64).
func (b rawJSON) langchainBlock(f partFields, path, kind string) partInfo {
	filename, _ := b.str(f.filename)
	if filename == "" {
		filename, _ = b.str(f.name)
	}
	for _, extras := range []span{f.extras, f.metadata} { // extras (Python), metadata (LangChain.js)
		if extras.ok() && b.kind(extras) == '{' {
			var fn span
			b.pick(extras.start, member{"filename", &fn})
			if n, ok := b.str(fn); ok && n != "" {
				filename = n
			}
		}
	}
	switch {
	case f.sourceType.ok():
		if st, _ := b.str(f.sourceType); st != "base64" {
			return partInfo{class: partRef} // url, id, text
		}
		return family(b.base64Field(f.data, f.mimeType, path+".data", kind, filename, typedText), contracts.DialectLangChain)
	case f.base64.ok():
		return family(b.base64Field(f.base64, f.mimeType, path+".base64", kind, filename, typedText), contracts.DialectLangChain)
	case f.data.ok() && f.mimeTypeJS.ok(): // LangChain.js: {"type":"image","data":...,"mimeType":...}
		return family(b.base64Field(f.data, f.mimeTypeJS, path+".data", kind, filename, typedText), contracts.DialectLangChainJS)
	case f.url.ok() || f.fileID.ok() || f.id.ok():
		return partInfo{class: partRef}
	}
	return bad(path, "media part has no data (no source, source_type, base64, url or file_id)")
}

// geminiBlob reads Gemini's {"mimeType","data"} (or mime_type).
func (b rawJSON) geminiBlob(v span, path string) partInfo {
	if b.kind(v) != '{' {
		return bad(path, "inline data is not an object")
	}
	var mime, mimeSnake, data span
	b.pick(v.start, member{"mimeType", &mime}, member{"mime_type", &mimeSnake}, member{"data", &data})
	if !mime.ok() {
		mime = mimeSnake
	}
	return family(b.base64Field(data, mime, path+".data", "", "", bareText), contracts.DialectGemini)
}

// bedrockBlock reads Bedrock's {"format","name","source":{"bytes"}} of an image, document or video.
func (b rawJSON) bedrockBlock(v span, path, kind string) partInfo {
	if b.kind(v) != '{' {
		return bad(path, kind+" is not an object")
	}
	var src, name span
	b.pick(v.start, member{"source", &src}, member{"name", &name})
	if !src.ok() || b.kind(src) != '{' {
		return bad(path+".source", "source is missing or not an object")
	}
	var bytes span
	b.pick(src.start, member{"bytes", &bytes})
	if !bytes.ok() {
		return partInfo{class: partRef} // s3Location, text, content
	}
	filename, _ := b.str(name)
	p := family(b.base64Field(bytes, span{}, path+".source.bytes", kind, filename, bareText), contracts.DialectBedrockConverse)
	if kind == contracts.BinaryDocument && b.kind(name) == '"' {
		p.media.name = name
	}
	return p
}

// base64Field reads a bare base64 data field and the declared MIME type.
func (b rawJSON) base64Field(data, mime span, path, kind, filename string, shape textShape) partInfo {
	raw, isStr := b.strBytes(data)
	if !isStr || len(raw) == 0 {
		return bad(path, "media part has no data")
	}
	m, _ := b.str(mime)
	if k := mediaformat.PartKind(m); k != "" {
		kind = k
	}
	return partInfo{class: partMedia, media: mediaPart{data: raw, mime: m, kind: kind, filename: filename, shape: shape}}
}

// family sets the dialect whose blocks a media part p is written in.
func family(p partInfo, dialect string) partInfo {
	if p.class == partMedia {
		p.media.family = dialect
	}
	return p
}

// kindOfType is the kind of a LangChain or Anthropic block type.
func kindOfType(typ string) string {
	switch typ {
	case "image":
		return contracts.BinaryImage
	case "audio":
		return contracts.BinaryAudio
	case "video":
		return contracts.BinaryVideo
	}
	return contracts.BinaryDocument
}

// rawKey is the name of a raw key (quotes included).
func rawKey(raw []byte) string {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if b := rawJSON(raw); len(b) >= 2 {
		s, _ = b.str(span{0, len(b)})
	}
	return s
}

func quoted(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
