package scope_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/scope"
	"github.com/agentworks/artifact-worker/workspace"
)

func TestHeaderName(t *testing.T) {
	if scope.Header != contracts.HeaderScope {
		t.Fatalf("scope.Header %q, contracts.HeaderScope %q", scope.Header, contracts.HeaderScope)
	}
}

func TestParse(t *testing.T) {
	good := []struct{ in, canonical string }{
		{"*", "*"},
		{" * ", "*"},
		{"ws:team-a", "ws:team-a"},
		{"ws:team-b, ws:team-a,ws:team-a", "ws:team-a,ws:team-b"},
		{"artifact:*", "artifact:*"},
		{"artifact:run-42-*,\tws:A_b", "ws:A_b,artifact:run-42-*"},
		{"artifact:ü-*", "artifact:ü-*"},
	}
	for _, g := range good {
		s, err := scope.Parse(g.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", g.in, err)
			continue
		}
		if s.String() != g.canonical || !s.Present() {
			t.Errorf("Parse(%q) = %q (present %v), want %q", g.in, s.String(), s.Present(), g.canonical)
		}
	}
	bad := []struct{ in, says string }{
		{"", "empty"},
		{" ", "empty"},
		{"ws:a,", "entry 2 is empty"},
		{"*,ws:a", "only entry"},
		{"ws:", "workspace id"},
		{"ws:a:b", "workspace id"},
		{"ws:a*", "workspace id"},
		{"ws:" + strings.Repeat("a", 129), "1..128"},
		{"artifact:abc", "ends with '*'"},
		{"artifact:a*b*", "prefix holds"},
		{"artifact:a b*", "prefix holds"},
		{"artifact:a/b*", "prefix holds"},
		{"artifact:ws:team-a*", "ws:<workspaceId>"},
		{"artifact:" + strings.Repeat("a", 513) + "*", "at most 512"},
		{"team-a", "not \"*\""},
		{"WS:team-a", "not \"*\""},
		{"ws:team-a\n", "workspace id"},
		{strings.Repeat("ws:a,", 64) + "ws:a", "at most 64"},
		{strings.Repeat("x", 4097), "at most 4096"},
		{"ws:\xff", "UTF-8"},
	}
	for _, b := range bad {
		_, err := scope.Parse(b.in)
		if !errors.Is(err, scope.ErrMalformed) || !strings.Contains(err.Error(), b.says) {
			t.Errorf("Parse(%.40q) = %v, want ErrMalformed saying %q", b.in, err, b.says)
		}
	}
}

// TestWorkspaceRuleMatchesTheWorkspacePackage: a ws: entry accepts exactly the workspace ids
// workspace.ValidateWorkspaceID accepts (the scope package keeps its own copy of the rule).
func TestWorkspaceRuleMatchesTheWorkspacePackage(t *testing.T) {
	for _, id := range []string{"a", "A-b_9", "", "a.b", "a b", "ü", "a/b", strings.Repeat("x", 128), strings.Repeat("x", 129), "a:b", "-", "_"} {
		_, err := scope.Parse("ws:" + id)
		if (err == nil) != (workspace.ValidateWorkspaceID(id) == nil) {
			t.Errorf("workspace id %q: scope says %v, workspace says %v", id, err, workspace.ValidateWorkspaceID(id))
		}
	}
}

func TestUnscopedAndAllReadEverything(t *testing.T) {
	for _, s := range []scope.Scope{scope.Unscoped, scope.All} {
		if !s.Workspace("x") || !s.Artifact("anything") || s.Namespace() != "" {
			t.Errorf("%q does not read everything in the shared namespace", s.String())
		}
	}
	if scope.Unscoped.Present() || !scope.All.Present() {
		t.Error("Present is wrong")
	}
	if s := scope.From(context.Background()); s.Present() {
		t.Error("a context without a scope is not unscoped")
	}
}

func TestRefusalRecordedOnce(t *testing.T) {
	ctx := scope.With(context.Background(), mustParse(t, "ws:a"))
	if scope.Refused(ctx) != nil {
		t.Fatal("refused before any refusal")
	}
	if err := scope.Refuse(ctx, scope.ReasonWorkspace, "ws:b:eA"); !errors.Is(err, scope.ErrOutside) {
		t.Fatal(err)
	}
	_ = scope.Refuse(ctx, scope.ReasonArtifact, "later")
	if r := scope.Refused(ctx); r == nil || r.Reason != scope.ReasonWorkspace || r.Ref != "ws:b:eA" {
		t.Fatalf("refusal %+v", r)
	}
	// Outside a scoped context Refuse still answers ErrOutside and records nothing.
	if err := scope.Refuse(context.Background(), scope.ReasonArtifact, "x"); !errors.Is(err, scope.ErrOutside) || scope.Refused(context.Background()) != nil {
		t.Fatal("Refuse without a scope")
	}
}

func mustParse(t testing.TB, v string) scope.Scope {
	t.Helper()
	s, err := scope.Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPropertyScopes draws scopes and references and checks the decision against a model of the
// rule: a workspace file is in scope when its workspace is named; an artifact when a prefix starts
// its id; "*" reads everything; the canonical form parses to the same decisions and the same
// namespace, and two scopes share a namespace only when they decide alike.
func TestPropertyScopes(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	workspaces := []string{"a", "b", "team-a", "team-b", "A", "team_a"}
	ids := []string{"run-1", "run-12", "run-2", "r", "x-run-1", "", "rü", "team-a"}
	draw := func() (string, map[string]bool, []string, bool) {
		if r.IntN(10) == 0 {
			return "*", nil, nil, true
		}
		ws := map[string]bool{}
		var pre, entries []string
		for n := 1 + r.IntN(4); n > 0; n-- {
			if r.IntN(2) == 0 {
				w := workspaces[r.IntN(len(workspaces))]
				ws[w] = true
				entries = append(entries, "ws:"+w)
			} else {
				id := ids[r.IntN(len(ids))]
				rs := []rune(id)
				p := string(rs[:r.IntN(len(rs)+1)])
				pre = append(pre, p)
				entries = append(entries, strings.Repeat(" ", r.IntN(2))+"artifact:"+p+"*")
			}
		}
		return strings.Join(entries, ","), ws, pre, false
	}
	for range 2000 {
		header, ws, pre, all := draw()
		s := mustParse(t, header)
		again := mustParse(t, s.String())
		if again.String() != s.String() || again.Namespace() != s.Namespace() {
			t.Fatalf("%q: canonical %q parses to %q", header, s.String(), again.String())
		}
		for _, w := range workspaces {
			want := all || ws[w]
			if s.Workspace(w) != want || again.Workspace(w) != want {
				t.Fatalf("%q: workspace %q in scope %v, want %v", header, w, s.Workspace(w), want)
			}
		}
		for _, id := range ids {
			want := all
			for _, p := range pre {
				want = want || strings.HasPrefix(id, p)
			}
			if s.Artifact(id) != want {
				t.Fatalf("%q: artifact %q in scope %v, want %v", header, id, s.Artifact(id), want)
			}
		}
		other := mustParse(t, func() string { h, _, _, _ := draw(); return h }())
		if other.Namespace() == s.Namespace() && other.String() != s.String() {
			t.Fatalf("%q and %q share namespace %q", s.String(), other.String(), s.Namespace())
		}
	}
}

// FuzzParse: Parse never panics; what it accepts has a canonical form that parses to itself, and a
// scope that is not "*" reads no workspace it does not name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"*", "ws:a", "artifact:x*", "ws:a, artifact:*", "", ",", "ws:a,*", "artifact:ws:a*"} {
		f.Add(s, "a", "x")
	}
	f.Fuzz(func(t *testing.T, header, ws, id string) {
		s, err := scope.Parse(header)
		if err != nil {
			if !errors.Is(err, scope.ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			return
		}
		again, err := scope.Parse(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("canonical %q of %q: %v, %q", s.String(), header, err, again.String())
		}
		if s.String() != "*" && s.Workspace(ws) && !strings.Contains(","+s.String()+",", ",ws:"+ws+",") {
			t.Fatalf("%q reads workspace %q it does not name", s.String(), ws)
		}
		if s.Artifact(id) != again.Artifact(id) {
			t.Fatalf("%q and its canonical form disagree on %q", header, id)
		}
	})
}
