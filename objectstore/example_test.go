package objectstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentworks/artifact-worker/objectstore"
)

func ExampleLocal() {
	dir, _ := os.MkdirTemp("", "objectstore-example-")
	defer os.RemoveAll(dir)
	store, err := objectstore.NewLocal(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	key := objectstore.ArtifactKey("a1")
	content := "季度报告"
	_, err = store.Put(ctx, key, strings.NewReader(content), int64(len(content)), "text/plain; charset=utf-8",
		map[string]string{objectstore.MetaFilename: "报告 final.txt"})
	if err != nil {
		fmt.Println(err)
		return
	}

	data, info, err := store.ReadAll(ctx, key, 1<<20)
	fmt.Println(string(data), info.Filename(), info.ContentType, err)

	_, info, err = store.ReadAll(ctx, key, 4)
	fmt.Println(errors.Is(err, objectstore.ErrTooLarge), info.Size)

	_, err = store.Stat(ctx, objectstore.ArtifactKey("missing"))
	fmt.Println(errors.Is(err, objectstore.ErrNotFound))
	// Output:
	// 季度报告 报告 final.txt text/plain; charset=utf-8 <nil>
	// true 12
	// true
}
