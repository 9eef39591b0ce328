package workspace_test

import (
	"errors"
	"fmt"

	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

func Example() {
	// An agent wrote `docs\报告 v2.md` into workspace ws1: the chat panel gets this ID.
	id, err := workspace.EncodeID("ws1", `docs\报告 v2.md`)
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	_, _, err = workspace.DecodeID("artifact:3f2a9c1e") // an artifact reference, not a workspace ID
	fmt.Println(errors.Is(err, workspace.ErrNotWorkspaceID))

	// Reading it back: decode, then build the object key.
	ws, p, err := workspace.DecodeID(id)
	if err != nil {
		panic(err)
	}
	fmt.Println(ws, p)
	fmt.Println(objectstore.WorkspaceKey(ws, p))

	// An ID smuggling "../b/secret" never reaches workspace b.
	_, _, err = workspace.DecodeID("ws:a:Li4vYi9zZWNyZXQ")
	fmt.Println(errors.Is(err, workspace.ErrPathTraversal))

	// Malformed IDs are reported, never guessed at.
	_, _, err = workspace.DecodeID("ws:only-one-part")
	fmt.Println(errors.Is(err, workspace.ErrNotWorkspaceID))
	// Output:
	// ws:ws1:ZG9jcy_miqXlkYogdjIubWQ
	// true
	// ws1 docs/报告 v2.md
	// workspaces/ws1/docs/报告 v2.md
	// true
	// true
}

func ExampleCleanPath() {
	for _, p := range []string{`src\main.go`, "./a//b/../c.txt", "../b/secret", `C:\Windows`, "."} {
		clean, err := workspace.CleanPath(p)
		switch {
		case errors.Is(err, workspace.ErrPathTraversal):
			fmt.Printf("%-16q path_traversal_blocked\n", p)
		case errors.Is(err, workspace.ErrInvalidPath):
			fmt.Printf("%-16q invalid_path\n", p)
		default:
			fmt.Printf("%-16q %s\n", p, clean)
		}
	}
	// Output:
	// "src\\main.go"   src/main.go
	// "./a//b/../c.txt" a/c.txt
	// "../b/secret"    path_traversal_blocked
	// "C:\\Windows"    path_traversal_blocked
	// "."              invalid_path
}
