package handlers_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/scope"
	"github.com/agentworks/artifact-worker/workspace"
)

// The objects of the scope property test: artifact ids (some the prefix of another) and workspace
// files (workspaces whose names differ by a case, a separator or a suffix, the same path in
// several, paths with blanks, non-ASCII and URL characters). Each object's content names its key,
// so an answer shows which object it read.
var (
	oracleArtifacts  = []string{"a-1", "a-12", "b-1", "run-x", "A-1", "ws-like"}
	oracleWorkspaces = []string{"team-a", "team-b", "team_a", "A", "team-ab"}
	oraclePaths      = []string{"notes/plan.md", "secrets/plan.md", "x.txt", "dir with space/ü ñ (1).md", "100%#?&=;.txt", "-dash/a:b.md", ".hidden"}
)

// scopeOracle decides, apart from the code under test, whether ref is inside the scope header: a
// workspace file ("ws:W:...", also spelled "artifact:ws:W:...") when its workspace W is named by a
// ws: entry; any other artifact when an artifact: entry's prefix starts its id; everything for "*"
// and for no header at all (header "").
func scopeOracle(header, ref string) bool {
	if header == "" || strings.Trim(header, " \t") == "*" {
		return true
	}
	id := strings.TrimPrefix(ref, "artifact:")
	ws, isWorkspace := strings.CutPrefix(id, "ws:")
	if isWorkspace {
		ws, _, _ = strings.Cut(ws, ":")
	}
	for _, entry := range strings.Split(header, ",") {
		entry = strings.Trim(entry, " \t")
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

// scopeDraws draws scope headers and references from one deterministic source.
type scopeDraws struct{ r *rand.Rand }

func (d scopeDraws) pick(s []string) string { return s[d.r.IntN(len(s))] }

// blank is nothing, a space or a tab, or a few of them: what Parse trims around an entry.
func (d scopeDraws) blank() string {
	return d.pick([]string{"", "", "", " ", "\t", "  ", " \t "})
}

// header draws a scope header: "" (no header: the request is unscoped), "*", or one to three ws:
// and artifact: entries (stored and other workspaces, prefixes of stored ids of every length), with
// blanks around the entries and now and then an entry twice.
func (d scopeDraws) header() string {
	switch d.r.IntN(16) {
	case 0:
		return ""
	case 1:
		return d.blank() + "*" + d.blank()
	}
	var entries []string
	for n := 1 + d.r.IntN(3); n > 0; n-- {
		if d.r.IntN(2) == 0 {
			entries = append(entries, "ws:"+d.pick(append(oracleWorkspaces, "team-c", "team")))
		} else {
			id := []rune(d.pick(append(oracleArtifacts, "zz")))
			entries = append(entries, "artifact:"+string(id[:d.r.IntN(len(id)+1)])+"*")
		}
	}
	return d.respell(entries)
}

// respell writes entries as a header: shuffled, one of them perhaps repeated, blanks around each.
func (d scopeDraws) respell(entries []string) string {
	entries = slices.Clone(entries)
	if d.r.IntN(4) == 0 {
		entries = append(entries, d.pick(entries))
	}
	d.r.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	for i, e := range entries {
		entries[i] = d.blank() + e + d.blank()
	}
	return strings.Join(entries, ",")
}

// ref draws a reference in every spelling get_artifact and metadata take.
func (d scopeDraws) ref() string {
	enc := base64.RawURLEncoding.EncodeToString
	switch d.r.IntN(8) {
	case 0, 1: // an artifact id: stored, a prefix or extension of one, a case variant
		id := d.pick(append(oracleArtifacts, "a-", "a-123", "a-2", "b", "RUN-X", "ws", "artifact:a-1"))
		if d.r.IntN(2) == 0 {
			return "artifact:" + id
		}
		return id
	case 7: // malformed
		return d.pick([]string{"", "ws:team-a", "ws::" + enc([]byte("x.txt")), "ws:team-a:" + enc([]byte("../team-b/x.txt")),
			"ws:team a:" + enc([]byte("x.txt")), "a/b", "..", "artifact:", "ws:team-a:!!", "ws:team-a:" + enc([]byte("/x.txt")),
			"ws:team-a:" + base64.URLEncoding.EncodeToString([]byte("x.txt")), "ws:team-a:" + base64.StdEncoding.EncodeToString([]byte("100%#?&=;.txt")),
			"ws:" + strings.Repeat("w", 129) + ":" + enc([]byte("x.txt")), "a\x00b"})
	default: // a workspace file: stored or not, its path spelled as stored or cleaning to it
		ws := d.pick(append(oracleWorkspaces, "team-c", "TEAM-A", "team", "a"))
		p := d.pick(append(oraclePaths, "missing.md", "./x.txt", "notes//plan.md", "notes/../x.txt", `secrets\plan.md`, "dir with space/./ü ñ (1).md"))
		ref := "ws:" + ws + ":" + enc([]byte(p))
		if d.r.IntN(3) == 0 {
			return "artifact:" + ref
		}
		return ref
	}
}

// withHeader is ctx with the scope of header, ctx itself for "" (no header).
func withHeader(t *testing.T, ctx context.Context, header string) context.Context {
	t.Helper()
	if header == "" {
		return ctx
	}
	sc, err := scope.Parse(header)
	if err != nil {
		t.Fatalf("scope %q: %v", header, err)
	}
	return scope.With(ctx, sc)
}

// TestPropertyScopeThroughHandlers draws scopes and references and sends each reference, under each
// scope, through every read path of the handlers (tool.get_artifact, artifact.metadata, the HTTP
// content lookup), through tool.get_history_image and through workspace.file_written, against an
// oracle written apart from the code:
//
//   - a reference inside the scope is answered exactly as without a scope;
//   - a reference outside it is answered exactly as the same reference is answered by a store that
//     does not hold it (not found, word for word), and a refusal is recorded for the operator;
//   - an answer only ever carries the content of an object inside the scope;
//   - a history image is found only by a request whose scope names the same entries as the one
//     that cached it (or both read everything): then it is answered as without scopes, else as an
//     image never cached;
//   - a write outside the scope is permission_denied and stores nothing; inside, it is stored.
//
// References come in every spelling (a bare id, artifact:{id}, ws:{workspace}:{path},
// artifact:ws:..., paths with spaces, non-ASCII and URL characters, paths that clean to a stored
// one, ids and workspaces that are prefixes or case variants of stored ones, malformed ones; image
// ids bare, upper-case, history_ and placeholder spellings); scopes are no header, "*" or lists of
// ws: and artifact: entries, with blanks and repeats.
//
//	go test -run TestPropertyScopeThroughHandlers ./handlers/
func TestPropertyScopeThroughHandlers(t *testing.T) {
	t.Parallel()
	t.Run("reads", testScopeReads)
	t.Run("get_history_image", testScopeHistoryImages)
	t.Run("file_written", testScopeWrites)
}

// testScopeReads: 2,000 drawn scopes and references on get_artifact, metadata and the content
// lookup.
func testScopeReads(t *testing.T) {
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

	d := scopeDraws{rand.New(rand.NewPCG(26, 2))}
	const draws = 2000
	var inside, outside, refused, read int
	for i := range draws {
		header, ref := d.header(), d.ref()
		scoped := withHeader(t, ctx, header)
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
}

// sameScope is the oracle of the history image cache: an image cached by a request is found by a
// later one when both read everything (no header, or "*") or both headers name the same entries,
// whatever their order, blanks and repeats.
func sameScope(a, b string) bool {
	entries := func(h string) string {
		if h == "" || strings.Trim(h, " \t") == "*" {
			return "*"
		}
		var es []string
		for _, e := range strings.Split(h, ",") {
			es = append(es, strings.Trim(e, " \t"))
		}
		slices.Sort(es)
		return strings.Join(slices.Compact(es), ",")
	}
	return entries(a) == entries(b)
}

// testScopeHistoryImages: media cached under drawn scopes, fetched with get_history_image under
// 600 drawn scopes (half of them the caching scope spelled another way) and image ids.
func testScopeHistoryImages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	js, err := jetstream.New(natstest.Connect(t, natstest.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	// Three caches apart: media cached under the drawn scopes, the same media cached without a
	// scope (the answer inside), and none (the answer outside).
	cache := func(name string) *historyimage.Cache {
		c, err := historyimage.NewCache(ctx, js, historyimage.CacheConfig{KVBucket: name + "_kv", ObjectBucket: name + "_obj"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	scoped, unscoped, none := cache("scoped"), cache("unscoped"), cache("none")

	d := scopeDraws{rand.New(rand.NewPCG(26, 3))}
	type medium struct {
		md5, header string
		img         historyimage.Image
	}
	var media []medium
	for i := range 8 {
		data := testfiles.PNG(8+i, 8)
		mime := "image/png"
		if i%4 == 3 {
			data, mime = []byte("a text file of the history, "+strings.Repeat("x", i)), "text/plain"
		}
		sum := md5.Sum(data)
		m := medium{md5: hex.EncodeToString(sum[:]), header: d.header(), img: historyimage.Image{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}}
		if err := scoped.Put(withHeader(t, ctx, m.header), m.md5, m.img); err != nil {
			t.Fatal(err)
		}
		if err := unscoped.Put(ctx, m.md5, m.img); err != nil {
			t.Fatal(err)
		}
		media = append(media, m)
	}
	answer := func(c *historyimage.Cache, ctx context.Context, id string) string {
		idJSON, _ := json.Marshal(id)
		out, err := (&handlers.GetHistoryImage{Cache: c}).Handle(ctx, handling.Request{RequestID: "h", Body: []byte(`{"request_id":"h","image_md5":` + string(idJSON) + `}`)})
		if err != nil {
			e, _ := handlers.MapError(err)
			b, _ := json.Marshal(e)
			return "error " + string(b)
		}
		b, _ := json.Marshal(out)
		return string(b)
	}

	const draws = 600
	var found, hidden int
	for i := range draws {
		m := media[d.r.IntN(len(media))]
		header := d.header()
		if d.r.IntN(2) == 0 && m.header != "" && strings.Trim(m.header, " \t") != "*" {
			header = d.respell(strings.Split(m.header, ","))
		}
		id := d.pick([]string{m.md5, strings.ToUpper(m.md5), "history_" + m.md5, historyimage.Placeholder(m.md5),
			" " + historyimage.FilePlaceholder(m.md5) + " ", m.md5[:16], strings.Repeat("0", 32), "history_xyz", "1234567"})
		got := answer(scoped, withHeader(t, ctx, header), id)
		in := sameScope(header, m.header)
		want := answer(none, ctx, id)
		if in {
			want = answer(unscoped, ctx, id)
		}
		if got != want {
			t.Fatalf("draw %d: image cached under scope %q, fetched as %q under scope %q (same scope: %v): answered\n%.600s\nwant\n%.600s", i, m.header, id, header, in, got, want)
		}
		switch cached := !strings.HasPrefix(answer(unscoped, ctx, id), "error"); {
		case cached && in:
			found++
		case cached:
			hidden++
		}
	}
	if found < draws/10 || hidden < draws/10 {
		t.Fatalf("%d draws named a cached medium under its scope, %d under another: the draws do not exercise both", found, hidden)
	}
	t.Logf("%d draws: a cached medium named under its scope %d times, under another %d times", draws, found, hidden)
}

// testScopeWrites: 120 file_written calls under drawn scopes.
func testScopeWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	js, err := jetstream.New(natstest.Connect(t, natstest.Start(t)))
	if err != nil {
		t.Fatal(err)
	}
	files, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wstore, err := objectstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	fw := &handlers.FileWritten{Blobs: wstore, Files: files, MaxSize: 1 << 20}
	d := scopeDraws{rand.New(rand.NewPCG(26, 4))}
	var inside, outside int
	for i := range 120 {
		header, ws := d.header(), d.pick(append(oracleWorkspaces, "team-c", "team"))
		p := d.pick(oraclePaths) + "." + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		body, _ := json.Marshal(map[string]string{"request_id": "w", "workspace_id": ws, "path": p, "mime_type": "text/plain", "agent_id": "agent", "content": base64.StdEncoding.EncodeToString([]byte("hello"))})
		scoped := withHeader(t, ctx, header)
		_, err := fw.Handle(scoped, handling.Request{RequestID: "w", Body: body})
		_, statErr := wstore.Stat(ctx, objectstore.WorkspaceKey(ws, p))
		_, metaErr := files.Get(ctx, ws, p)
		in := scopeOracle(header, "ws:"+ws+":"+base64.RawURLEncoding.EncodeToString([]byte(p)))
		switch {
		case in && (err != nil || statErr != nil || metaErr != nil):
			t.Fatalf("write %d: scope %q, workspace %s is inside: err %v, stored: %v, recorded: %v", i, header, ws, err, statErr, metaErr)
		case in:
			inside++
			if r := scope.Refused(scoped); r != nil {
				t.Fatalf("write %d: scope %q, workspace %s is inside, yet a refusal was recorded: %+v", i, header, ws, r)
			}
		case err == nil:
			t.Fatalf("write %d: scope %q, workspace %s is outside, yet the write was accepted", i, header, ws)
		default:
			outside++
			if e, _ := handlers.MapError(err); e.Code != "permission_denied" {
				t.Fatalf("write %d: scope %q, workspace %s: %s, want permission_denied", i, header, ws, e.Code)
			}
			if statErr == nil || metaErr == nil {
				t.Fatalf("write %d: scope %q, workspace %s is outside, yet %s was stored (object: %v, record: %v)", i, header, ws, p, statErr == nil, metaErr == nil)
			}
			if r := scope.Refused(scoped); r == nil || r.Reason != scope.ReasonWrite {
				t.Fatalf("write %d: scope %q, workspace %s is outside: refusal %+v, want %s", i, header, ws, r, scope.ReasonWrite)
			}
		}
	}
	if inside < 20 || outside < 20 {
		t.Fatalf("%d writes inside the scope, %d outside: the draws do not exercise both", inside, outside)
	}
	// Nothing else reached the store, under any name: it holds as many objects as writes were accepted.
	var objects int
	err = filepath.WalkDir(filepath.Join(dir, "objects"), func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			objects++
		}
		return err
	})
	if err != nil || objects != inside {
		t.Fatalf("the store holds %d objects after %d accepted writes (%d refused): %v", objects, inside, outside, err)
	}
	t.Logf("%d writes: %d inside the scope stored, %d outside refused", inside+outside, inside, outside)
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
