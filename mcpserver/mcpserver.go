// Package mcpserver serves the worker's tools (get_artifact, get_history_image, write_file) over the
// Model Context Protocol. It talks to the worker over NATS through a Caller (the Go client), so it can
// run anywhere the NATS server is reachable. Results are MCP content blocks: an image block for an
// image the model can see, an audio block, an embedded resource (blob + mimeType) for a file, text for
// text and for descriptions. Failures are MCP tool errors (isError) carrying the worker's localised
// message, never protocol errors, so the model reads what went wrong.
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/messages"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// Caller sends one request to the worker and decodes its result; an error reply is a *contracts.Error.
// *client.Client implements it.
type Caller interface {
	Call(ctx context.Context, subject string, req any, result any) error
}

// Config says who the model is and where it writes. The zero value serves a text-only model (no
// service_id, no capabilities: the worker describes media instead of sending it), in Chinese, with
// write_file refused for want of a workspace.
type Config struct {
	// ServiceID names the model in the worker's capability registry (a tool argument overrides it).
	ServiceID string
	// Capabilities, when not nil, replace the registry's entry (text, vision, file, audio, video).
	Capabilities []string
	// Locale of descriptions and messages: zh (default) or en.
	Locale string
	// WorkspaceID is where write_file writes; empty refuses write_file.
	WorkspaceID string
	// AgentID is recorded as the writer of write_file.
	AgentID string
	// Version is the server's version in the MCP handshake.
	Version string
	// MaxResultBytes bounds a tool result (its JSON-RPC message) to what the host takes: images
	// are fitted further, a file that cannot fit becomes a resource link with a line the model can
	// act on, text is cut (see HostLimits). Zero is DefaultMaxResultBytes (Claude Desktop's 1 MB);
	// negative sets no bound. Tools declare it, within Claude Code's ceiling, as
	// _meta["anthropic/maxResultSizeChars"].
	MaxResultBytes int
	// ContentURL is the base URL of the worker's HTTP server (worker run's HTTP_ADDR, e.g.
	// http://127.0.0.1:8080): resource links then point at its /artifacts/{id}/content. Empty:
	// they are artifact: URIs.
	ContentURL string
	// ContentToken says that the content endpoint requires the worker's HTTP_TOKEN (the line next to
	// a link says so; the token itself is never put in a result).
	ContentToken bool
}

// New returns an MCP server with the three tools, calling the worker through c.
func New(c Caller, cfg Config) *mcp.Server {
	if !contracts.KnownLocale(cfg.Locale) {
		cfg.Locale = contracts.DefaultLocale
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.MaxResultBytes == 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	s := mcp.NewServer(&mcp.Implementation{Name: contracts.ServiceName, Version: cfg.Version}, nil)
	h := &handlers{c: c, cfg: cfg, fit: fitter{max: cfg.MaxResultBytes, locale: cfg.Locale, contentURL: cfg.ContentURL, tokenAuth: cfg.ContentToken}}
	for _, t := range tooldefs.Tools(cfg.Locale) {
		params := t.Parameters
		var handle mcp.ToolHandler
		switch t.Name {
		case tooldefs.GetArtifact:
			params = withModelArguments(params, cfg.Locale)
			handle = h.getArtifact
		case tooldefs.GetHistoryImage:
			handle = h.getHistoryImage
		case tooldefs.WriteFile:
			handle = h.writeFile
		default:
			continue
		}
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: params,
			Meta: mcp.Meta{MaxResultSizeCharsMeta: h.fit.declaredChars()}}, handle)
	}
	return s
}

// withModelArguments adds the optional service_id and capabilities arguments to get_artifact's
// parameters, for hosts that know which model they serve.
func withModelArguments(params map[string]any, locale string) map[string]any {
	props := map[string]any{}
	for k, v := range params["properties"].(map[string]any) {
		props[k] = v
	}
	sid, caps := messages.Text(locale, messages.ServiceIDDescription), messages.Text(locale, messages.CapabilitiesDescription)
	props["service_id"] = map[string]any{"type": "string", "description": sid}
	props["capabilities"] = map[string]any{"type": "array", "description": caps,
		"items": map[string]any{"type": "string", "enum": contracts.Capabilities()}}
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	out["properties"] = props
	return out
}

// checkPages is a tool error for a pages argument that is not a page selection (pdfpages.ParsePages
// says what is wrong), before the worker is asked; nil for a good one or none.
func checkPages(pages, locale string) *mcp.CallToolResult {
	if _, err := pdfpages.ParsePages(pages); err != nil {
		return toolError(messages.Format(locale, messages.InvalidArguments, "pages: "+err.Error()))
	}
	return nil
}

type handlers struct {
	c   Caller
	cfg Config
	fit fitter
}

func requestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "mcp-" + hex.EncodeToString(b[:])
}

// decode reads the tool arguments into v; bad arguments are a tool error the model can correct.
func decode(req *mcp.CallToolRequest, v any, locale string) *mcp.CallToolResult {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return toolError(messages.Format(locale, messages.InvalidArguments, err.Error()))
	}
	return nil
}

func (h *handlers) getArtifact(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Ref          string   `json:"ref"`
		ServiceID    string   `json:"service_id"`
		Capabilities []string `json:"capabilities"`
		Pages        string   `json:"pages"`
	}
	if bad := decode(req, &args, h.cfg.Locale); bad != nil {
		return bad, nil
	}
	if bad := checkPages(args.Pages, h.cfg.Locale); bad != nil {
		return bad, nil
	}
	r := contracts.GetArtifactRequest{RequestID: requestID(), Ref: args.Ref, ServiceID: h.cfg.ServiceID,
		Capabilities: h.cfg.Capabilities, Locale: h.cfg.Locale, Media: contracts.MediaResult, Pages: args.Pages}
	if args.ServiceID != "" {
		r.ServiceID, r.Capabilities = args.ServiceID, nil
	}
	if args.Capabilities != nil {
		r.Capabilities = args.Capabilities
	}
	if r.ServiceID == "" && r.Capabilities == nil {
		r.Capabilities = []string{} // unknown model: text only, as the registry treats one
	}
	var res contracts.GetArtifactResult
	if err := h.c.Call(ctx, contracts.SubjectGetArtifact, r, &res); err != nil {
		return callError(err), nil
	}
	out, err := artifactContent(args.Ref, res)
	if err != nil {
		return toolError(err.Error()), nil
	}
	src := source{id: strings.TrimPrefix(args.Ref, "artifact:"), name: res.Metadata.Filename, mime: res.Metadata.MimeType, size: res.Metadata.Size}
	return h.fit.fit(out, src), nil
}

// artifactContent turns a get_artifact result into content blocks: the worker's summary line, then
// the media as an image, audio or embedded resource block; text and descriptions as text. Media that
// does not decode is an error (the caller makes it a tool error).
func artifactContent(ref string, res contracts.GetArtifactResult) (*mcp.CallToolResult, error) {
	text := &mcp.TextContent{Text: res.Content}
	switch {
	case res.Routing == contracts.RouteImageURL && res.ImageURL != nil:
		mime, data, err := parseDataURL(res.ImageURL.ImageURL.URL)
		if err != nil {
			return nil, fmt.Errorf("image of %s: %w", ref, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{text, &mcp.ImageContent{Data: data, MIMEType: mime}}}, nil
	case res.Routing == contracts.RoutePages && res.Pages != nil:
		blocks, err := pageBlocks(ref, res.Pages.Images)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: append([]mcp.Content{text}, blocks...)}, nil
	case res.Routing == contracts.RouteFile && res.File != nil:
		data, err := base64.StdEncoding.DecodeString(res.File.File.Data)
		if err != nil {
			return nil, fmt.Errorf("file data of %s: %w", ref, err)
		}
		mime := res.File.File.MimeType
		if strings.HasPrefix(mime, "audio/") {
			return &mcp.CallToolResult{Content: []mcp.Content{text, &mcp.AudioContent{Data: data, MIMEType: mime}}}, nil
		}
		uri := ref
		if !strings.Contains(uri, ":") {
			uri = "artifact:" + uri
		}
		return &mcp.CallToolResult{Content: []mcp.Content{text, &mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: uri, MIMEType: mime, Blob: data}}}}, nil
	default:
		return &mcp.CallToolResult{Content: []mcp.Content{text}}, nil
	}
}

// pageBlocks are a PDF's pages sent as images (routing pages): each page's text (its name and text
// layer), then its image, in order.
func pageBlocks(ref string, pages []contracts.PageImage) ([]mcp.Content, error) {
	out := make([]mcp.Content, 0, 2*len(pages))
	for _, p := range pages {
		mime, data, err := parseDataURL(p.ImageURL.ImageURL.URL)
		if err != nil {
			return nil, fmt.Errorf("page %d of %s: %w", p.Page, ref, err)
		}
		out = append(out, &mcp.TextContent{Text: p.Text}, &mcp.ImageContent{Data: data, MIMEType: mime})
	}
	return out, nil
}

func (h *handlers) getHistoryImage(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		ImageMD5 string `json:"image_md5"`
		Pages    string `json:"pages"`
	}
	if bad := decode(req, &args, h.cfg.Locale); bad != nil {
		return bad, nil
	}
	if bad := checkPages(args.Pages, h.cfg.Locale); bad != nil {
		return bad, nil
	}
	var res contracts.GetHistoryImageResult
	// The model, when the server knows it, so the image is fitted to it (or described for a model
	// that cannot see it); with neither the worker takes every kind as readable. Media both: a
	// description is only in the assembly.
	r := contracts.GetHistoryImageRequest{RequestID: requestID(), ImageMD5: args.ImageMD5, Locale: h.cfg.Locale,
		ServiceID: h.cfg.ServiceID, Capabilities: h.cfg.Capabilities, Media: contracts.MediaBoth, Pages: args.Pages}
	if err := h.c.Call(ctx, contracts.SubjectGetHistoryImage, r, &res); err != nil {
		return callError(err), nil
	}
	out := &mcp.CallToolResult{}
	uri := "history:" + historyID.FindString(args.ImageMD5)
	if res.Pages != nil && len(res.Pages.Images) > 0 { // a PDF as its pages: each page's text, then its image
		blocks, err := pageBlocks(args.ImageMD5, res.Pages.Images)
		if err != nil {
			return toolError(messages.Format(h.cfg.Locale, messages.BadHistoryImage, args.ImageMD5, err)), nil
		}
		out.Content = blocks
		return h.fit.fit(out, source{}), nil
	}
	for _, b := range res.Content {
		data, err := base64.StdEncoding.DecodeString(b.Base64)
		if err != nil {
			return toolError(messages.Format(h.cfg.Locale, messages.BadHistoryImage, args.ImageMD5, err)), nil
		}
		out.Content = append(out.Content, mediaBlock(b.Type, b.MimeType, data, uri))
	}
	if len(out.Content) == 0 { // described: the tool message is the text (openai-chat: a string)
		var text string
		if json.Unmarshal(res.Assembly.ToolContent, &text) != nil || text == "" {
			return toolError(messages.Format(h.cfg.Locale, messages.NoHistoryContent, args.ImageMD5)), nil
		}
		out.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	}
	return h.fit.fit(out, source{}), nil
}

// historyID is the MD5 in a get_history_image argument ("history_<md5>", "<md5>" or the placeholder).
var historyID = regexp.MustCompile(`[0-9a-fA-F]{32}`)

// mediaBlock is the MCP block of a get_history_image content block: image, audio, or an embedded
// resource for a document or video.
func mediaBlock(typ, mime string, data []byte, uri string) mcp.Content {
	switch typ {
	case "image":
		return &mcp.ImageContent{Data: data, MIMEType: mime}
	case "audio":
		return &mcp.AudioContent{Data: data, MIMEType: mime}
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: mime, Blob: data}}
}

func (h *handlers) writeFile(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Path     string `json:"path"`
		Content  string `json:"content"`
		MimeType string `json:"mimeType"`
	}
	if bad := decode(req, &args, h.cfg.Locale); bad != nil {
		return bad, nil
	}
	if h.cfg.WorkspaceID == "" {
		return toolError(messages.Text(h.cfg.Locale, messages.NoWorkspace)), nil
	}
	content := args.Content
	r := contracts.FileWrittenRequest{RequestID: requestID(), WorkspaceID: h.cfg.WorkspaceID, Path: args.Path,
		MimeType: args.MimeType, AgentID: h.cfg.AgentID, Content: &content}
	var res contracts.FileWrittenResult
	if err := h.c.Call(ctx, contracts.SubjectFileWritten, r, &res); err != nil {
		return callError(err), nil
	}
	body, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: res}, nil
}

// callError is the tool error for a failed call: the tool result the worker made for the model
// (error.assembly, localised as on NATS: the routing design's error object for get_artifact, the history-image design's
// sentence for get_history_image), else the error's message, or what went wrong on the way.
func callError(err error) *mcp.CallToolResult {
	var we *contracts.Error
	if !errors.As(err, &we) {
		return toolError(err.Error())
	}
	if we.Assembly != nil {
		var text string // the requests leave dialect at openai-chat: toolContent is a string
		if json.Unmarshal(we.Assembly.ToolContent, &text) == nil && text != "" {
			return toolError(text)
		}
	}
	return toolError(we.Message)
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// parseDataURL splits "data:<mime>;base64,<data>" (mediaformat.CutDataURL) and decodes the data.
func parseDataURL(u string) (string, []byte, error) {
	mime, b64, err := mediaformat.CutDataURL(u)
	if err != nil {
		return "", nil, fmt.Errorf("image is not a base64 data URL: %w", err)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	return mime, data, err
}
