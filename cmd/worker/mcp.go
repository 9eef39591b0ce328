package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/scope"
)

const mcpUsage = `usage: worker mcp [--http ADDR [--allow-origin ORIGIN,...]] [--service-id ID | --capabilities LIST]
                  [--locale zh|en] [--workspace-id ID] [--agent-id ID] [--scope SCOPE] [--tenant NAME] [--timeout 60s]
                  [--host claude-desktop|claude-code|unbounded] [--max-result-bytes N]
                  [--content-url URL] [worker settings]

Serves the worker's tools (get_artifact, get_history_image, write_file) over the Model Context
Protocol: on stdin/stdout (for desktop hosts) or, with --http, as streamable HTTP on ADDR at /mcp. It
calls the worker over NATS (NATS_URL) like worker call, so it runs anywhere NATS is reachable.

Tool results fit the host (--host, --max-result-bytes): images are reduced further, a file that
cannot fit becomes a resource link to --content-url's /artifacts/{id}/content (set HTTP_TOKEN as
the worker has it, and the line next to the link says the endpoint needs it).

--scope is sent with every tool call (Artifact-Worker-Scope): with --scope ws:team-a the host sees
only workspace team-a's files; anything else is answered as not found.

Over HTTP, MCP_TOKEN (environment only) is the bearer token every request needs; without it
worker mcp listens only on a loopback address.`

// mcpFlags are the flags of `worker mcp` besides the worker's settings.
type mcpFlags struct {
	http, serviceID, capabilities, locale, workspaceID, agentID string
	host, contentURL, allowOrigin, scope, tenant                string
	maxResultBytes                                              int
	timeout                                                     time.Duration
}

func (f *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (path /mcp) instead of stdio; one it cannot listen on exits 2")
	fs.StringVar(&f.serviceID, "service-id", "", "the model's service_id in the capability registry (a tool argument overrides it)")
	fs.StringVar(&f.capabilities, "capabilities", "", "what the model reads, replacing the registry's entry: comma-separated text,vision,file,audio,video (neither this nor --service-id: text only)")
	fs.StringVar(&f.locale, "locale", contracts.DefaultLocale, "language of tool descriptions and messages: "+contracts.LocaleList())
	fs.StringVar(&f.workspaceID, "workspace-id", "", "workspace write_file writes to (empty: write_file is refused)")
	fs.StringVar(&f.tenant, "tenant", "", tenantUsage)
	fs.StringVar(&f.scope, "scope", "", "what this server's tool calls may read (Artifact-Worker-Scope): *, or comma-separated ws:<workspaceId> and artifact:<prefix>* entries, e.g. ws:team-a; empty sends none (the worker's REQUIRE_SCOPE then refuses every call)")
	fs.StringVar(&f.agentID, "agent-id", "", "agent recorded as the writer of write_file")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "bound on one tool call")
	fs.StringVar(&f.host, "host", mcpserver.HostClaudeDesktop, "the MCP host, for the size of tool results: claude-desktop (1,000,000 bytes), claude-code (500,000) or unbounded")
	fs.IntVar(&f.maxResultBytes, "max-result-bytes", 0, "largest tool result in bytes, instead of --host's (negative: no bound)")
	fs.StringVar(&f.contentURL, "content-url", "", "base URL of the worker's HTTP server (worker run's HTTP_ADDR, e.g. http://127.0.0.1:8080): resource links point at its /artifacts/{id}/content")
	fs.StringVar(&f.allowOrigin, "allow-origin", "", "with --http: comma-separated browser origins (scheme://host:port) allowed besides the server's own")
}

func (f *mcpFlags) config() (mcpserver.Config, error) {
	var errs []error
	cfg := mcpserver.Config{ServiceID: f.serviceID, Locale: f.locale, WorkspaceID: f.workspaceID, AgentID: f.agentID, Version: buildinfo.Version}
	if !contracts.KnownLocale(f.locale) {
		errs = append(errs, fmt.Errorf("--locale %q: use %s", f.locale, contracts.LocaleList()))
	}
	if f.capabilities != "" {
		cfg.Capabilities = []string{}
		for _, c := range strings.Split(f.capabilities, ",") {
			if c = strings.TrimSpace(c); contracts.KnownCapability(c) {
				cfg.Capabilities = append(cfg.Capabilities, c)
			} else {
				errs = append(errs, fmt.Errorf("--capabilities: %q is not text, vision, file, audio or video", c))
			}
		}
	}
	if f.tenant != "" {
		if err := contracts.ValidateTenant(f.tenant); err != nil {
			errs = append(errs, fmt.Errorf("--tenant: %w", err))
		}
	}
	if f.scope != "" {
		sc, err := scope.Parse(f.scope)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("--scope: %w", err))
		case f.workspaceID != "" && !sc.Workspace(f.workspaceID):
			errs = append(errs, fmt.Errorf("--scope %q does not hold --workspace-id %s: write_file would always be refused", f.scope, f.workspaceID))
		}
	}
	if f.timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout %s: must be positive", f.timeout))
	}
	limit, ok := mcpserver.HostLimits[f.host]
	if !ok {
		errs = append(errs, fmt.Errorf("--host %q: use claude-desktop, claude-code or unbounded", f.host))
	}
	cfg.MaxResultBytes = cmp.Or(f.maxResultBytes, limit)
	if f.contentURL != "" {
		if u, err := url.Parse(f.contentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--content-url %q: want http(s)://host:port", f.contentURL))
		}
		cfg.ContentURL = f.contentURL
	}
	return cfg, errors.Join(errs...)
}

// mcpCmd is `worker mcp`. Exit 0 on a clean stop (stdin closed, SIGTERM); 2 on bad usage or a bad
// setting, including an --http address it cannot listen on (checked first, before NATS); 1 when
// it cannot serve otherwise (NATS unreachable, the HTTP server failing while it serves).
func mcpCmd(args []string) int {
	fs := flag.NewFlagSet("worker mcp", flag.ContinueOnError)
	var f mcpFlags
	f.register(fs)
	prepareUsage(fs, mcpUsage, args)
	cfg, rest, err := loadConfig(fs, args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("unexpected arguments %q", rest)
	}
	var mcfg mcpserver.Config
	if err == nil {
		mcfg, err = f.config()
		mcfg.ContentToken = cfg.HTTPToken != ""
	}
	var hopts mcpserver.HTTPOptions
	if err == nil && f.http != "" {
		hopts = mcpserver.HTTPOptions{Token: os.Getenv("MCP_TOKEN")}
		if f.allowOrigin != "" {
			hopts.TrustedOrigins = strings.Split(f.allowOrigin, ",")
		}
		if err = hopts.Validate(); err != nil {
			err = fmt.Errorf("--allow-origin: %w", err)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker mcp: %v\n", err)
		return exitUsage
	}
	var ln net.Listener
	if f.http != "" {
		// A bad setting, like a bad flag: said at once, not after waiting for NATS.
		if ln, err = net.Listen("tcp", f.http); err != nil {
			fmt.Fprintf(os.Stderr, "worker mcp: --http %s: %v\n", f.http, err)
			return exitUsage
		}
		defer ln.Close()
		if err := mcpserver.CheckListener(ln.Addr(), hopts.Token); err != nil {
			fmt.Fprintf(os.Stderr, "worker mcp: --http %s: %v: set MCP_TOKEN, or listen on 127.0.0.1\n", f.http, err)
			return exitUsage
		}
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	nc, c, err := dial(ctx, cfg, "artifact-worker-mcp", log, f.tenant)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker mcp: %v\n", err)
		return exitFailure
	}
	defer nc.Close()
	server := mcpserver.New(timeoutCaller{c.WithScope(f.scope), f.timeout}, mcfg)
	if ln == nil {
		err = server.Run(ctx, &mcp.StdioTransport{MaxLineLength: -1})
		if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "worker mcp: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	return serveMCPHTTP(ctx, ln, server, hopts)
}

// serveMCPHTTP serves streamable HTTP at /mcp on ln until ctx ends, then shuts down within 5 s.
func serveMCPHTTP(ctx context.Context, ln net.Listener, server *mcp.Server, o mcpserver.HTTPOptions) int {
	h, err := mcpserver.HTTPHandler(server, o)
	if err != nil { // checked before listening
		fmt.Fprintf(os.Stderr, "worker mcp: %v\n", err)
		return exitUsage
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "worker mcp: streamable HTTP on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(os.Stderr, "worker mcp: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	return exitOK
}

// timeoutCaller bounds each call.
type timeoutCaller struct {
	c       *client.Client
	timeout time.Duration
}

func (t timeoutCaller) Call(ctx context.Context, subject string, req, result any) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.c.Call(ctx, subject, req, result)
}
