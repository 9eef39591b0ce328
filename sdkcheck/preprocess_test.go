package sdkcheck

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	brtypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// discard is a history cache that keeps nothing: the check is of the rewritten context.
type discard struct{}

func (discard) Put(context.Context, string, historyimage.Image) error { return nil }

// TestPreprocessedContextsDecode: an agent session whose tools returned a PDF and screenshots,
// preprocessed in its dialect (the older media out, the latest kept; then for a text-only model,
// every medium described), still decodes message by message into the provider's official types,
// with the media parts where they were and only those of the latest turn left.
func TestPreprocessedContextsDecode(t *testing.T) {
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	all := append(variants, variant{dialect: contracts.DialectOpenAIChat, toolResultMedia: "strict"})
	for _, v := range all {
		t.Run(v.String(), func(t *testing.T) {
			carriesPDF := routing.DialectCarries(v.dialect, contracts.BinaryDocument, "pdf")
			session := agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.toolResultMedia == "strict",
				Task: "Compare the report with the page.", Turns: 3, Media: func(i int) agentsession.Media {
					if i == 0 && carriesPDF {
						return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
					}
					return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(20+i, 10))}
				}}
			in := agentsession.Build(session)
			if p := decodeContext(t, v.dialect, in); p.total() != 3 {
				t.Fatalf("the session carries %+v before preprocessing, want 3 media parts", p)
			}
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, discard{}, historyimage.Options{Dialect: v.dialect, KeepTurns: 1})
			if err != nil || rep.Stats.ImagesReplaced+rep.Stats.FilesReplaced != 2 {
				t.Fatalf("preprocess: %v %+v", err, rep.Stats)
			}
			if p := decodeContext(t, v.dialect, out); p.images != 1 || p.total() != 1 {
				t.Errorf("after preprocessing: %+v, want the latest screenshot only", p)
			}
			text, rep, err := historyimage.PreprocessWith(t.Context(), in, discard{}, historyimage.Options{Dialect: v.dialect, KeepTurns: 1,
				Readable: func(string) bool { return false },
				Describe: func(d historyimage.Described) string {
					return routing.DescribeHistoryMedia("en", d.Placeholder, d.Filename, d.MIME, d.Size)
				}})
			if err != nil || rep.Stats.MediaDescribed != 3 {
				t.Fatalf("preprocess for a text-only model: %v %+v", err, rep.Stats)
			}
			if p := decodeContext(t, v.dialect, text); p.total() != 0 {
				t.Errorf("for a text-only model: %+v left", p)
			}
		})
	}
}

// decodeContext decodes every message of a context into the dialect's official types (Bedrock:
// through the SDK's serializer; LangChain: langchain-core's TypedDict keys), failing unless each
// encodes back to the same JSON, and counts its media parts.
func decodeContext(t *testing.T, dialect string, ctx json.RawMessage) parts {
	t.Helper()
	var msgs []json.RawMessage
	mustUnmarshal(t, ctx, &msgs)
	var p parts
	for i, raw := range msgs {
		var q parts
		switch dialect {
		case contracts.DialectOpenAIChat:
			q = decodeChatMessage(t, raw)
		case contracts.DialectOpenAIResponses:
			q = decodeResponsesItem(t, raw)
		case contracts.DialectAnthropic:
			q = decodeAnthropicMessage(t, raw)
		case contracts.DialectGemini:
			q = decodeGeminiContent(t, raw)
		case contracts.DialectBedrockConverse:
			q = decodeBedrockMessage(t, raw)
		case contracts.DialectLangChain, contracts.DialectLangChainJS:
			q = decodeLangChainMessage(t, dialect, raw)
		}
		if t.Failed() {
			t.Fatalf("messages[%d]: %.300s", i, raw)
		}
		p.images, p.documents, p.audio, p.video = p.images+q.images, p.documents+q.documents, p.audio+q.audio, p.video+q.video
	}
	return p
}

func decodeChatMessage(t *testing.T, raw json.RawMessage) parts {
	var m openai.ChatCompletionMessageParamUnion
	mustUnmarshal(t, raw, &m)
	roundTrip(t, "openai chat message", raw, m)
	var p parts
	switch {
	case m.OfTool != nil:
		if !m.OfTool.Content.OfString.Valid() {
			t.Errorf("tool message content is not a string")
		}
	case m.OfUser != nil:
		for _, c := range m.OfUser.Content.OfArrayOfContentParts {
			switch {
			case c.OfImageURL != nil:
				p.images++
			case c.OfFile != nil:
				p.documents++
			case c.OfInputAudio != nil:
				p.audio++
			}
		}
	case m.OfAssistant == nil && m.OfSystem == nil:
		t.Errorf("not a system, user, assistant or tool message")
	}
	return p
}

func decodeResponsesItem(t *testing.T, raw json.RawMessage) parts {
	var item responses.ResponseInputItemUnionParam
	mustUnmarshal(t, raw, &item)
	roundTrip(t, "responses input item", raw, item)
	var p parts
	switch {
	case item.OfFunctionCallOutput != nil:
		for _, c := range item.OfFunctionCallOutput.Output.OfResponseFunctionCallOutputItemArray {
			switch {
			case c.OfInputImage != nil:
				p.images++
			case c.OfInputFile != nil:
				p.documents++
			}
		}
	case item.OfMessage != nil, item.OfFunctionCall != nil:
	default:
		t.Errorf("not a message, function_call or function_call_output")
	}
	return p
}

func decodeAnthropicMessage(t *testing.T, raw json.RawMessage) parts {
	var m anthropic.MessageParam
	mustUnmarshal(t, raw, &m)
	roundTrip(t, "anthropic message", raw, m)
	var p parts
	count := func(image, doc bool) {
		if image {
			p.images++
		}
		if doc {
			p.documents++
		}
	}
	if m.OfUser == nil {
		if m.OfAssistant == nil {
			t.Errorf("neither a user nor an assistant message")
		}
		return p
	}
	for _, b := range m.OfUser.Content {
		count(b.OfImage != nil, b.OfDocument != nil)
		if tr := b.OfToolResult; tr != nil {
			if tr.ToolUseID == "" || len(tr.Content) == 0 {
				t.Errorf("tool_result without tool_use_id or content")
			}
			for _, c := range tr.Content {
				count(c.OfImage != nil, c.OfDocument != nil)
				if c.OfText != nil && c.OfText.Text == "" {
					t.Errorf("empty text block (Anthropic rejects it)")
				}
			}
		}
	}
	return p
}

func decodeGeminiContent(t *testing.T, raw json.RawMessage) parts {
	var c genai.Content
	strictUnmarshal(t, raw, &c)
	roundTrip(t, "gemini content", raw, c)
	var p parts
	if len(c.Parts) == 0 {
		t.Errorf("content without parts")
	}
	for _, part := range c.Parts {
		if part.InlineData != nil {
			p = countMIME(p, part.InlineData.MIMEType)
		}
		if fr := part.FunctionResponse; fr != nil {
			if fr.Name == "" || fr.ID == "" || fr.Response == nil {
				t.Errorf("functionResponse without id, name or response")
			}
			for _, fp := range fr.Parts {
				if fp.InlineData == nil {
					t.Errorf("functionResponse part without inlineData")
					continue
				}
				p = countMIME(p, fp.InlineData.MIMEType)
			}
		}
	}
	return p
}

// brAny is a Converse message of text, toolUse and toolResult blocks, decoded strictly.
type brAny struct {
	Role    string `json:"role"`
	Content []struct {
		Text    *string `json:"text,omitempty"`
		ToolUse *struct {
			ToolUseID string         `json:"toolUseId"`
			Name      string         `json:"name"`
			Input     map[string]any `json:"input"`
		} `json:"toolUse,omitempty"`
		ToolResult json.RawMessage `json:"toolResult,omitempty"`
	} `json:"content"`
}

func decodeBedrockMessage(t *testing.T, raw json.RawMessage) parts {
	var m brAny
	strictUnmarshal(t, raw, &m)
	if len(m.Content) > 0 && m.Content[0].ToolResult != nil {
		_, p := decodeBedrock(t, []json.RawMessage{raw}) // tool results through the SDK's serializer
		return p
	}
	msg := brtypes.Message{Role: brtypes.ConversationRole(m.Role)}
	for _, b := range m.Content {
		switch {
		case b.Text != nil:
			msg.Content = append(msg.Content, &brtypes.ContentBlockMemberText{Value: *b.Text})
		case b.ToolUse != nil:
			msg.Content = append(msg.Content, &brtypes.ContentBlockMemberToolUse{Value: brtypes.ToolUseBlock{
				ToolUseId: aws.String(b.ToolUse.ToolUseID), Name: aws.String(b.ToolUse.Name), Input: document.NewLazyDocument(b.ToolUse.Input)}})
		default:
			t.Errorf("a block that is not text, toolUse or toolResult")
		}
	}
	assertJSONEqual(t, "bedrock message through the SDK", bedrockWire(t, msg), raw)
	return parts{}
}

func decodeLangChainMessage(t *testing.T, dialect string, raw json.RawMessage) parts {
	if strings.HasPrefix(string(raw), "[") { // a [role, content] pair
		var pair []json.RawMessage
		mustUnmarshal(t, raw, &pair)
		if len(pair) != 2 {
			t.Errorf("pair of %d", len(pair))
		}
		return parts{}
	}
	var probe struct {
		Role string `json:"role"`
	}
	mustUnmarshal(t, raw, &probe)
	if probe.Role == "tool" {
		_, p := decoders[dialect](t, []json.RawMessage{raw})
		return p
	}
	var ai struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID   string         `json:"id"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"tool_calls"`
	}
	strictUnmarshal(t, raw, &ai)
	if ai.Role != "assistant" {
		t.Errorf("role %q", ai.Role)
	}
	return parts{}
}

// TestPreprocessedPDFPagesDecode: a PDF in the latest turn that context.preprocess replaces by its
// pages for a model that reads images but takes no PDF (historyimage.Options.Pages, with the pieces
// routing.WithPages and PagePieces give) still decodes message by message into the provider's
// official types, with one image part per page and no document left.
func TestPreprocessedPDFPagesDecode(t *testing.T) {
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	png := testfiles.PNG(60, 80)
	page := func(n int) routing.RenderedPage {
		info := imaging.Info{Format: "png", Width: 60, Height: 80, Bytes: int64(len(png))}
		return routing.RenderedPage{Number: n, Text: "page text", Image: imaging.Result{Data: png, Format: "png", Original: info, Sent: info}}
	}
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			if !routing.DialectCarries(v.dialect, contracts.BinaryDocument, "pdf") {
				t.Skip("the dialect carries no PDF part")
			}
			in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
				Task: "Read the report.", Turns: 1, Media: func(int) agentsession.Media {
					return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
				}})
			opts := historyimage.Options{Dialect: v.dialect, KeepTurns: 1,
				Readable: func(kind string) bool { return kind == contracts.BinaryImage },
				Describe: func(d historyimage.Described) string {
					return routing.DescribeHistoryMedia("en", d.Placeholder, d.Filename, d.MIME, d.Size)
				},
				Pages: func(_ context.Context, in historyimage.PagesInput) ([]dialects.Piece, bool) {
					described := routing.Route(routing.Input{ID: "a1", Filename: "report.pdf", Content: in.Data, Capabilities: routing.NewCapabilities("text", "vision"), Locale: "en"})
					res := routing.WithPages(described, routing.RenderedPages{Total: 9, Pages: []routing.RenderedPage{page(1), page(2)}, Left: "3-9"}, "en")
					intro, pages := routing.PagePieces(res, in.Dialect)
					return append([]dialects.Piece{{Text: intro}}, pages...), true
				}}
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, discard{}, opts)
			if err != nil || rep.Stats.PDFPages != 2 {
				t.Fatalf("preprocess: %v %+v", err, rep.Stats)
			}
			if p := decodeContext(t, v.dialect, out); p.images != 2 || p.total() != 2 {
				t.Errorf("after preprocessing: %+v, want the 2 page images", p)
			}
		})
	}
}
