package historyimage_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentworks/artifact-worker/historyimage"
)

func ExamplePreprocess() {
	messages := json.RawMessage(`[
  ["human", [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}]],
  ["ai", "A greeting."],
  ["human", "Thanks!"]
]`)
	cache := newMemPutter() // production code passes a *historyimage.Cache
	out, stats, err := historyimage.Preprocess(context.Background(), messages, cache, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	fmt.Printf("replaced %d image, removed %d bytes of base64\n", stats.ImagesReplaced, stats.BytesRemoved)
	img := cache.images["0733351879b2fa9bd05c7ca3061529c0"]
	fmt.Println("cached:", img.Data, img.MimeType)
	// Output:
	// [
	//   ["human", [{"type": "text", "text": "What is this?"}, {"type":"text","text":"[Picture:history_0733351879b2fa9bd05c7ca3061529c0]"}]],
	//   ["ai", "A greeting."],
	//   ["human", "Thanks!"]
	// ]
	// replaced 1 image, removed 8 bytes of base64
	// cached: aGVsbG8= image/png
}

func ExampleNormalizeID() {
	for _, id := range []string{"history_0733351879B2FA9BD05C7CA3061529C0", "[Picture:history_07333518]", "abc"} {
		md5, err := historyimage.NormalizeID(id)
		fmt.Printf("%q %v\n", md5, err)
	}
	// Output:
	// "0733351879b2fa9bd05c7ca3061529c0" <nil>
	// "07333518" <nil>
	// "" historyimage: invalid image identifier
}
