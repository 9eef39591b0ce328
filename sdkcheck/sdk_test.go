package sdkcheck

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	brtypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentworks/artifact-worker/contracts"
)

// reporter is what the checks need of a *testing.T; TestDecodersRejectDrift passes a recorder.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// parts counts the media parts a turn carries once decoded into a provider's types.
type parts struct{ images, documents, audio, video int }

func (p parts) total() int { return p.images + p.documents + p.audio + p.video }

// decoders decode a whole turn (client.Turn's output) into the official SDK types of a dialect
// and fail the test unless the SDK's own encoding of what it decoded equals the input: a field
// the SDK does not know, a wrong type or a wrong union member changes the round trip.
var decoders = map[string]func(t reporter, turn []json.RawMessage) (roles []string, p parts){
	contracts.DialectOpenAIChat:      decodeOpenAIChat,
	contracts.DialectOpenAIResponses: decodeOpenAIResponses,
	contracts.DialectAnthropic:       decodeAnthropic,
	contracts.DialectGemini:          decodeGemini,
	contracts.DialectBedrockConverse: decodeBedrock,
	contracts.DialectLangChain:       decodeLangChain,
	contracts.DialectLangChainJS:     decodeLangChainJS,
}

func decodeOpenAIChat(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var m openai.ChatCompletionMessageParamUnion
		mustUnmarshal(t, raw, &m)
		roundTrip(t, "openai chat message", raw, m)
		switch {
		case m.OfTool != nil:
			roles = append(roles, "tool")
			if !m.OfTool.Content.OfString.Valid() {
				t.Errorf("tool message content is not a string: %s", raw)
			}
		case m.OfAssistant != nil:
			roles = append(roles, "assistant")
			if !m.OfAssistant.Content.OfString.Valid() || len(m.OfAssistant.ToolCalls) > 0 {
				t.Errorf("assistant message is not plain text: %s", raw)
			}
		case m.OfUser != nil:
			roles = append(roles, "user")
			for _, c := range m.OfUser.Content.OfArrayOfContentParts {
				switch {
				case c.OfImageURL != nil:
					p.images++
					mustDataURL(t, c.OfImageURL.ImageURL.URL)
				case c.OfFile != nil:
					p.documents++
					mustDataURL(t, c.OfFile.File.FileData.Value)
					if !c.OfFile.File.Filename.Valid() {
						t.Errorf("file part without filename")
					}
				case c.OfInputAudio != nil:
					p.audio++
					mustBase64(t, c.OfInputAudio.InputAudio.Data)
				}
			}
		default:
			t.Fatalf("message is neither tool, assistant nor user: %s", raw)
		}
	}
	return roles, p
}

func decodeOpenAIResponses(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var item responses.ResponseInputItemUnionParam
		mustUnmarshal(t, raw, &item)
		roundTrip(t, "responses input item", raw, item)
		out := item.OfFunctionCallOutput
		if out == nil || !out.CallID.Valid() {
			t.Fatalf("not a function_call_output with a call_id: %s", raw)
		}
		roles = append(roles, "function_call_output")
		for _, c := range out.Output.OfResponseFunctionCallOutputItemArray {
			switch {
			case c.OfInputImage != nil:
				p.images++
				mustDataURL(t, c.OfInputImage.ImageURL.Value)
			case c.OfInputFile != nil:
				p.documents++
				mustDataURL(t, c.OfInputFile.FileData.Value)
			}
		}
	}
	return roles, p
}

func decodeAnthropic(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var m anthropic.MessageParam
		mustUnmarshal(t, raw, &m)
		roundTrip(t, "anthropic message", raw, m)
		if m.OfUser == nil {
			t.Fatalf("not a user message: %s", raw)
		}
		roles = append(roles, "user")
		for i, b := range m.OfUser.Content {
			tr := b.OfToolResult
			if tr == nil {
				t.Fatalf("block %d is not a tool_result: %s", i, raw)
			}
			for _, c := range tr.Content {
				switch {
				case c.OfImage != nil:
					p.images++
					mustBase64(t, c.OfImage.Source.OfBase64.Data)
				case c.OfDocument != nil:
					p.documents++
					mustBase64(t, c.OfDocument.Source.OfBase64.Data)
				case c.OfText != nil:
					if c.OfText.Text == "" {
						t.Errorf("empty text block (Anthropic rejects it)")
					}
				}
			}
		}
	}
	return roles, p
}

// decodeGemini checks a Gemini turn: first one content holding every functionResponse of the turn
// (Gemini takes the responses to parallel calls together), then the follow-up contents (text and
// inlineData, for models that take no media in a function response), none of them a response.
func decodeGemini(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for i, raw := range turn {
		var c genai.Content
		strictUnmarshal(t, raw, &c)
		roundTrip(t, "gemini content", raw, c)
		roles = append(roles, c.Role)
		if len(c.Parts) == 0 {
			t.Fatalf("content without parts: %s", raw)
		}
		if i > 0 { // a follow-up
			for _, part := range c.Parts {
				switch {
				case part.FunctionResponse != nil:
					t.Fatalf("content %d holds a functionResponse: the responses of one turn go in its first content: %.300s", i, raw)
				case part.InlineData != nil:
					if len(part.InlineData.Data) == 0 || part.InlineData.MIMEType == "" {
						t.Fatalf("follow-up inlineData without data or mimeType: %.300s", raw)
					}
					p = countMIME(p, part.InlineData.MIMEType)
				case part.Text == "":
					t.Errorf("follow-up part is neither text nor inlineData: %.300s", raw)
				}
			}
			if c.Role != "user" {
				t.Errorf("follow-up role %q, want user", c.Role)
			}
			continue
		}
		for _, part := range c.Parts {
			fr := part.FunctionResponse
			if fr == nil || fr.Name == "" || fr.ID == "" || fr.Response == nil {
				t.Fatalf("part is not a functionResponse with id, name and response: %s", raw)
			}
			if _, ok := fr.Response["output"].(string); !ok {
				t.Errorf("functionResponse.response.output is not a string: %v", fr.Response)
			}
			for _, fp := range fr.Parts {
				if fp.InlineData == nil || len(fp.InlineData.Data) == 0 || fp.InlineData.MIMEType == "" {
					t.Fatalf("functionResponse part without inlineData: %s", raw)
				}
				p = countMIME(p, fp.InlineData.MIMEType)
			}
		}
	}
	return roles, p
}

// Bedrock's Go types are interfaces without JSON tags; the turn is decoded strictly into the
// documented JSON shape, built into the SDK's types, sent through the SDK's own serializer (an
// HTTP client that captures the request), and the SDK's JSON must equal the turn.

type brMessage struct {
	Role    string    `json:"role"`
	Content []brBlock `json:"content"`
}

type brBlock struct {
	ToolResult *brToolResult `json:"toolResult"`
}

type brToolResult struct {
	ToolUseID string      `json:"toolUseId"`
	Content   []brContent `json:"content"`
	Status    string      `json:"status"`
}

type brContent struct {
	Text     *string  `json:"text,omitempty"`
	Image    *brMedia `json:"image,omitempty"`
	Document *brMedia `json:"document,omitempty"`
	Video    *brMedia `json:"video,omitempty"`
}

type brMedia struct {
	Format string `json:"format"`
	Name   string `json:"name,omitempty"`
	Source struct {
		Bytes []byte `json:"bytes"`
	} `json:"source"`
}

var bedrockDocumentName = regexp.MustCompile(`^[A-Za-z0-9\-()\[\]]+( [A-Za-z0-9\-()\[\]]+)*$`)

func decodeBedrock(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var m brMessage
		strictUnmarshal(t, raw, &m)
		msg := brtypes.Message{Role: brtypes.ConversationRole(m.Role)}
		if !slices.Contains(msg.Role.Values(), msg.Role) {
			t.Fatalf("role %q is not a Bedrock role", m.Role)
		}
		roles = append(roles, m.Role)
		for _, b := range m.Content {
			if b.ToolResult == nil {
				t.Fatalf("block is not a toolResult: %s", raw)
			}
			tr := brtypes.ToolResultBlock{ToolUseId: aws.String(b.ToolResult.ToolUseID), Status: brtypes.ToolResultStatus(b.ToolResult.Status)}
			if !slices.Contains(tr.Status.Values(), tr.Status) {
				t.Errorf("status %q is not a Bedrock tool result status", tr.Status)
			}
			for _, c := range b.ToolResult.Content {
				switch {
				case c.Text != nil:
					tr.Content = append(tr.Content, &brtypes.ToolResultContentBlockMemberText{Value: *c.Text})
				case c.Image != nil:
					p.images++
					f := brtypes.ImageFormat(c.Image.Format)
					if !slices.Contains(f.Values(), f) {
						t.Errorf("image format %q is not a Bedrock ImageFormat", f)
					}
					tr.Content = append(tr.Content, &brtypes.ToolResultContentBlockMemberImage{Value: brtypes.ImageBlock{Format: f, Source: &brtypes.ImageSourceMemberBytes{Value: c.Image.Source.Bytes}}})
				case c.Document != nil:
					p.documents++
					f := brtypes.DocumentFormat(c.Document.Format)
					if !slices.Contains(f.Values(), f) {
						t.Errorf("document format %q is not a Bedrock DocumentFormat", f)
					}
					if !bedrockDocumentName.MatchString(c.Document.Name) {
						t.Errorf("document name %q has characters Bedrock rejects", c.Document.Name)
					}
					tr.Content = append(tr.Content, &brtypes.ToolResultContentBlockMemberDocument{Value: brtypes.DocumentBlock{Format: f, Name: aws.String(c.Document.Name), Source: &brtypes.DocumentSourceMemberBytes{Value: c.Document.Source.Bytes}}})
				case c.Video != nil:
					p.video++
					f := brtypes.VideoFormat(c.Video.Format)
					if !slices.Contains(f.Values(), f) {
						t.Errorf("video format %q is not a Bedrock VideoFormat", f)
					}
					tr.Content = append(tr.Content, &brtypes.ToolResultContentBlockMemberVideo{Value: brtypes.VideoBlock{Format: f, Source: &brtypes.VideoSourceMemberBytes{Value: c.Video.Source.Bytes}}})
				default:
					t.Fatalf("toolResult content block with no member: %s", raw)
				}
			}
			msg.Content = append(msg.Content, &brtypes.ContentBlockMemberToolResult{Value: tr})
		}
		sent := bedrockWire(t, msg)
		assertJSONEqual(t, "bedrock message as the SDK sends it", sent, raw)
	}
	return roles, p
}

var errCaptured = errors.New("captured")

type captureHTTP struct{ body []byte }

func (c *captureHTTP) Do(r *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(r.Body)
	return nil, errCaptured
}

// bedrockWire is the JSON the SDK sends for msg: messages[0] of a Converse request body.
func bedrockWire(t reporter, msg brtypes.Message) json.RawMessage {
	t.Helper()
	capture := &captureHTTP{}
	c := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", HTTPClient: capture, Retryer: aws.NopRetryer{},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "example"}, nil // signs the captured request; nothing is sent
		}),
	})
	_, err := c.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String("model"), Messages: []brtypes.Message{msg}})
	if !errors.Is(err, errCaptured) || capture.body == nil {
		t.Fatalf("the SDK did not serialise the message: %v", err)
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	mustUnmarshal(t, capture.body, &body)
	if len(body.Messages) != 1 {
		t.Fatalf("serialised %d messages", len(body.Messages))
	}
	return body.Messages[0]
}

// LangChain has no Go SDK: ToolMessage dicts and v1 standard content blocks are checked against
// langchain-core's TypedDicts (messages/content.py): only their keys, with the required ones set.

type lcToolMessage struct {
	Role       string    `json:"role"`
	ToolCallID string    `json:"tool_call_id"`
	Name       string    `json:"name,omitempty"`
	Content    []lcBlock `json:"content"`
}

type lcBlock struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	Base64   string         `json:"base64,omitempty"`
	MimeType string         `json:"mime_type,omitempty"`
	Extras   map[string]any `json:"extras,omitempty"`
}

func decodeLangChain(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var m lcToolMessage
		strictUnmarshal(t, raw, &m)
		if m.Role != "tool" || m.ToolCallID == "" {
			t.Fatalf("not a tool message with tool_call_id: %s", raw)
		}
		roles = append(roles, m.Role)
		for _, b := range m.Content {
			if b.Type == "text" {
				if b.Text == nil || b.Base64 != "" || b.MimeType != "" {
					t.Errorf("text block %+v", b)
				}
				continue
			}
			if b.Text != nil || b.MimeType == "" {
				t.Errorf("%s block without mime_type or with text: %+v", b.Type, b)
			}
			mustBase64(t, b.Base64)
			switch b.Type {
			case "image":
				p.images++
			case "file":
				p.documents++
				if name, _ := b.Extras["filename"].(string); name == "" {
					t.Errorf("file block without extras.filename (OpenAI needs a filename for PDFs)")
				}
			case "audio":
				p.audio++
			case "video":
				p.video++
			default:
				t.Errorf("unknown block type %q", b.Type)
			}
		}
	}
	return roles, p
}

// LangChain.js has no Go SDK either: ToolMessage dicts and standard content blocks are checked
// against @langchain/core's types (messages/content: ContentBlock.Text and ContentBlock.Multimodal
// Image, Audio, Video, File with data and mimeType): only their keys, with the required ones set.

type lcjsToolMessage struct {
	Role       string      `json:"role"`
	ToolCallID string      `json:"tool_call_id"`
	Name       string      `json:"name,omitempty"`
	Content    []lcjsBlock `json:"content"`
}

type lcjsBlock struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	Data     string         `json:"data,omitempty"`
	MimeType string         `json:"mimeType,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

func decodeLangChainJS(t reporter, turn []json.RawMessage) ([]string, parts) {
	t.Helper()
	var roles []string
	var p parts
	for _, raw := range turn {
		var m lcjsToolMessage
		strictUnmarshal(t, raw, &m)
		if m.Role != "tool" || m.ToolCallID == "" {
			t.Fatalf("not a tool message with tool_call_id: %s", raw)
		}
		roles = append(roles, m.Role)
		for _, b := range m.Content {
			if b.Type == "text" {
				if b.Text == nil || b.Data != "" || b.MimeType != "" {
					t.Errorf("text block %+v", b)
				}
				continue
			}
			if b.Text != nil || b.MimeType == "" {
				t.Errorf("%s block without mimeType or with text: %+v", b.Type, b)
			}
			mustBase64(t, b.Data)
			switch b.Type {
			case "image":
				p.images++
			case "file":
				p.documents++
				if name, _ := b.Metadata["filename"].(string); name == "" {
					t.Errorf("file block without metadata.filename (OpenAI needs a filename for PDFs)")
				}
			case "audio":
				p.audio++
			case "video":
				p.video++
			default:
				t.Errorf("unknown block type %q", b.Type)
			}
		}
	}
	return roles, p
}

func countMIME(p parts, mime string) parts {
	switch {
	case len(mime) > 6 && mime[:6] == "image/":
		p.images++
	case len(mime) > 6 && mime[:6] == "audio/":
		p.audio++
	case len(mime) > 6 && mime[:6] == "video/":
		p.video++
	default:
		p.documents++
	}
	return p
}

func mustUnmarshal(t reporter, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode into %T: %v\n%.300s", v, err, raw)
	}
}

// strictUnmarshal rejects fields the type does not have.
func strictUnmarshal(t reporter, raw []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("strict decode into %T: %v\n%.300s", v, err, raw)
	}
}

// roundTrip fails unless v, decoded from raw, encodes back to the same JSON value.
func roundTrip(t reporter, what string, raw []byte, v any) {
	t.Helper()
	back, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: encode %T: %v", what, v, err)
	}
	assertJSONEqual(t, what+" after a round trip through "+fmt.Sprintf("%T", v), back, raw)
}

func assertJSONEqual(t reporter, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs:\n got %.400s\nwant %.400s", what, got, want)
	}
}

func mustDataURL(t reporter, u string) {
	t.Helper()
	re := regexp.MustCompile(`^data:[a-z]+/[a-z0-9.+-]+;base64,`)
	loc := re.FindStringIndex(u)
	if loc == nil {
		t.Fatalf("not a data URL: %.60q", u)
	}
	mustBase64(t, u[loc[1]:])
}

func mustBase64(t reporter, s string) {
	t.Helper()
	if _, err := base64.StdEncoding.DecodeString(s); err != nil || s == "" {
		t.Fatalf("not standard base64 (%v): %.60q", err, s)
	}
}
