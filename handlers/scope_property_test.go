package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/scope"
	"github.com/agentworks/artifact-worker/workspace"
)

// The objects of the scope property test: artifact ids (some the prefix of another) and workspace
// files (workspaces whose names differ by a case, a separator or a suffix, the same path in
// several). Each object's content names its key, so an answer shows which object it read.
var (
	oracleArtifacts  = []string{"a-1", "a-12", "b-1", "run-x", "A-1", "ws-like"}
	oracleWorkspaces = []string{"team-a", "team-b", "team_a", "A", "team-ab"}
	oraclePaths      = []string{"notes/plan.md", "secrets/plan.md", "x.txt"}
)

// scopeOracle decides, apart from the code under test, whether ref is inside the scope header: a
// workspace file ("ws:W:...", also spelled "artifact:ws:W:...") when its workspace W is named by a
// ws: entry; any other artifact when an artifact: entry's prefix starts its id; everything for "*".
func scopeOracle(header, ref string) bool {
	if header == "*" {
		return true
	}
	id := strings.TrimPrefix(ref, "artifact:")
	ws, isWorkspace := strings.CutPrefix(id, "ws:")
	if isWorkspace {
		ws, _, _ = strings.Cut(ws, ":")
	}
	for _, entry := range strings.Split(header, ",") {
		entry = strings.TrimSpace(entry)
		if name, ok := strings.CutPrefix(entry, "ws:"); ok && isWorkspace && name == ws {
			return true
		}
		if p, ok := strings.CutPrefix(entry, "artifact:"); ok && !isWorkspace && strings.HasPrefix(id, strings.TrimSuffix(p, "*")) {
			return true
		}
	}
	return false
}

// oracleReaders are the read paths over one store: tool.get_artifact, artifact.metadata and the
// content lookup of the HTTP endpoint (Artifacts.Open).
type oracleReaders struct {
	get  *handlers.GetArtifact
	meta *handlers.Metadata
	arts *handlers.Artifacts
}

func newOracleReaders(t *testing.T, store *objectstore.Local) oracleReaders {
	arts := &handlers.Artifacts{Blobs: store, MaxSize: 1 << 20}
	return oracleReaders{get: &handlers.GetArtifact{Blobs: store, MaxSize: 1 << 20}, meta: &handlers.Metadata{Artifacts: arts}, arts: arts}
}

// answers are what each read path answers for ref under ctx: the encoded result, or the wire error
// (handlers.MapError: code, message, ref), as JSON.
func (r oracleReaders) answers(t *testing.T, ctx context.Context, ref string) [3]string {
	t.Helper()
	wire := func(out any, err error) string {
		if err != nil {
			e, _ := handlers.MapError(err)
			b, _ := json.Marshal(e)
			return "error " + string(b)
		}
		if enc, ok := out.(handling.Encoded); ok {
			return string(enc)
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	refJSON, _ := json.Marshal(ref)
	var a [3]string
	a[0] = wire(r.get.Handle(ctx, handling.Request{RequestID: "p", Body: []byte(`{"request_id":"p","service_id":"text-model","ref":` + string(refJSON) + `}`)}))
	a[1] = wire(r.meta.Handle(ctx, handling.Request{RequestID: "p", Body: []byte(`{"request_id":"p","id":` + string(refJSON) + `}`)}))
	rc, info, err := r.arts.Open(ctx, ref)
	if err != nil {
		a[2] = wire(nil, err)
	} else {
		body, _ := io.ReadAll(rc)
		_ = rc.Close()
		a[2] = wire(struct {
			Info    any
			Content string
		}{info, string(body)}, nil)
	}
	return a
}

// TestPropertyScopeThroughHandlers draws scopes and references and sends each reference, under each
// scope, through every read path of the handlers (tool.get_artifact, artifact.metadata, the HTTP
// content lookup) and through workspace.file_written, against an oracle written apart from the code:
//
//   - a reference inside the scope is answered exactly as without a scope;
//   - a reference outside it is answered exactly as the same reference is answered by a store that
//     does not hold it (not found, word for word), and a refusal is recorded for the operator;
//   - an answer only ever carries the content of an object inside the scope;
//   - a write outside the scope is permission_denied and stores nothing; inside, it is stored.
//
// References come in every spelling (a bare id, artifact:{id}, ws:{workspace}:{path},
// artifact:ws:..., paths that clean to a stored one, ids and workspaces that are prefixes or case
// variants of stored ones, malformed ones); scopes are "*" or lists of ws: and artifact: entries.
//
//	go test -run TestPropertyScopeThroughHandlers ./handlers/
func TestPropertyScopeThroughHandlers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	full, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	empty, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, id := range oracleArtifacts {
		keys = append(keys, objectstore.ArtifactKey(id))
	}
	for _, ws := range oracleWorkspaces {
		for _, p := range oraclePaths {
			keys = append(keys, objectstore.WorkspaceKey(ws, p))
		}
	}
	for _, key := range keys {
		body := "content of " + key + "\n"
		if _, err := full.Put(ctx, key, strings.NewReader(body), int64(len(body)), "text/plain", nil); err != nil {
			t.Fatal(err)
		}
	}
	stored, none := newOracleReaders(t, full), newOracleReaders(t, empty)

	r := rand.New(rand.NewPCG(26, 2))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	enc := base64.RawURLEncoding.EncodeToString
	drawRef := func() string {
		switch r.IntN(8) {
		case 0, 1: // an artifact id: stored, a prefix or extension of one, a case variant
			id := pick(append(oracleArtifacts, "a-", "a-123", "a-2", "b", "RUN-X", "ws"))
			if r.IntN(2) == 0 {
				return "artifact:" + id
			}
			return id
		case 7: // malformed
			return pick([]string{"", "ws:team-a", "ws::" + enc([]byte("x.txt")), "ws:team-a:" + enc([]byte("../team-b/x.txt")),
				"ws:team a:" + enc([]byte("x.txt")), "a/b", "..", "artifact:", "ws:team-a:!!", "artifact:artifact:a-1"})
		default: // a workspace file: stored or not, its path spelled as stored or cleaning to it
			ws := pick(append(oracleWorkspaces, "team-c", "TEAM-A", "team"))
			p := pick(append(oraclePaths, "missing.md", "./x.txt", "notes//plan.md", "notes/../x.txt", `secrets\plan.md`))
			ref := "ws:" + ws + ":" + enc([]byte(p))
			if r.IntN(3) == 0 {
				return "artifact:" + ref
			}
			return ref
		}
	}
	drawScope := func() string {
		if r.IntN(12) == 0 {
			return "*"
		}
		var entries []string
		for n := 1 + r.IntN(3); n > 0; n-- {
			if r.IntN(2) == 0 {
				entries = append(entries, "ws:"+pick(append(oracleWorkspaces, "team-c", "team")))
			} else {
				id := []rune(pick(append(oracleArtifacts, "zz")))
				entries = append(entries, "artifact:"+string(id[:r.IntN(len(id)+1)])+"*")
			}
		}
		return strings.Join(entries, strings.Repeat(" ", r.IntN(2))+",")
	}

	const draws = 2000
	var inside, outside, refused, read int
	for i := range draws {
		header, ref := drawScope(), drawRef()
		sc, err := scope.Parse(header)
		if err != nil {
			t.Fatalf("draw %d: scope %q: %v", i, header, err)
		}
		scoped := scope.With(ctx, sc)
		got := stored.answers(t, scoped, ref)
		in := scopeOracle(header, ref)
		want := none.answers(t, ctx, ref)
		if in {
			inside++
			want = stored.answers(t, ctx, ref)
		} else {
			outside++
		}
		for path, name := range []string{"get_artifact", "metadata", "content"} {
			if got[path] != want[path] {
				t.Fatalf("draw %d: scope %q, ref %q (inside: %v): %s answered\n%s\nwant\n%s", i, header, ref, in, name, got[path], want[path])
			}
			for _, key := range keys {
				if strings.Contains(got[path], "content of "+key+`\n`) || strings.Contains(got[path], "content of "+key+"\n") {
					if !objectInScope(header, key) {
						t.Fatalf("draw %d: scope %q, ref %q: %s answered with %s, outside the scope", i, header, ref, name, key)
					}
				}
			}
		}
		// A reference that resolves (answered not-found by the empty store, not invalid) and lies
		// outside is recorded as refused; one inside never is.
		wellFormed := strings.Contains(want[0], `"code":"artifact_not_found"`) || !strings.HasPrefix(want[0], "error")
		switch refusal := scope.Refused(scoped); {
		case refusal != nil && in:
			t.Fatalf("draw %d: scope %q, ref %q is inside, yet a refusal was recorded: %+v", i, header, ref, refusal)
		case refusal == nil && !in && wellFormed:
			t.Fatalf("draw %d: scope %q, ref %q is outside and no refusal was recorded", i, header, ref)
		case refusal != nil:
			refused++
		}
		if in && !strings.HasPrefix(got[0], "error") {
			read++
		}
	}
	if inside < draws/5 || outside < draws/5 || read < draws/10 {
		t.Fatalf("%d draws inside the scope (%d read a stored object), %d outside: the draws do not exercise every case", inside, read, outside)
	}
	t.Logf("%d draws: %d inside the scope (%d read a stored object), %d outside (%d refusals recorded)", draws, inside, read, outside, refused)

	// Writes: file_written under drawn scopes stores inside the scope and nothing outside.
	js, _ := jetstream.New(natstest.Connect(t, natstest.Start(t)))
	files, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	wstore, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fw := &handlers.FileWritten{Blobs: wstore, Files: files, MaxSize: 1 << 20}
	for i := range 60 {
		header, ws := drawScope(), pick(append(oracleWorkspaces, "team-c"))
		sc, _ := scope.Parse(header)
		p := "w" + strings.Repeat("x", i%3) + "/" + string(rune('a'+i%26)) + ".txt"
		body, _ := json.Marshal(map[string]string{"request_id": "w", "workspace_id": ws, "path": p, "mime_type": "text/plain", "agent_id": "agent", "content": base64.StdEncoding.EncodeToString([]byte("hello"))})
		_, err := fw.Handle(scope.With(ctx, sc), handling.Request{RequestID: "w", Body: body})
		_, statErr := wstore.Stat(ctx, objectstore.WorkspaceKey(ws, p))
		in := scopeOracle(header, "ws:"+ws+":"+enc([]byte(p)))
		switch {
		case in && (err != nil || statErr != nil):
			t.Fatalf("write %d: scope %q, workspace %s is inside: err %v, stored: %v", i, header, ws, err, statErr)
		case !in && err == nil:
			t.Fatalf("write %d: scope %q, workspace %s is outside, yet the write was accepted", i, header, ws)
		case !in:
			if e, _ := handlers.MapError(err); e.Code != "permission_denied" {
				t.Fatalf("write %d: scope %q, workspace %s: %s, want permission_denied", i, header, ws, e.Code)
			}
			if statErr == nil {
				t.Fatalf("write %d: scope %q, workspace %s is outside, yet %s was stored", i, header, ws, p)
			}
		}
	}
}

// objectInScope is scopeOracle for a stored key (artifacts/{id} or workspaces/{ws}/{path}).
func objectInScope(header, key string) bool {
	if id, ok := strings.CutPrefix(key, objectstore.ArtifactPrefix); ok {
		return scopeOracle(header, id)
	}
	rest := strings.TrimPrefix(key, objectstore.WorkspacePrefix)
	ws, p, _ := strings.Cut(rest, "/")
	return scopeOracle(header, "ws:"+ws+":"+base64.RawURLEncoding.EncodeToString([]byte(p)))
}
