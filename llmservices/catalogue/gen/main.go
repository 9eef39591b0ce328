// Command gen writes llmservices/catalogue.json from the snapshots in llmservices/catalogue/snapshots
// (run by `go generate ./llmservices`).
package main

import (
	"fmt"
	"os"

	"github.com/agentworks/artifact-worker/llmservices/catalogue"
)

func main() {
	out, st, err := catalogue.Build("catalogue/snapshots")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("catalogue.json", out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("catalogue.json: %d entries (%d read images, %d PDF files, %d audio, %d video)\n",
		st.Entries, st.Vision, st.File, st.Audio, st.Video)
}
