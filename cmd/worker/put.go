package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/service"
)

// put uploads FILE as a regular artifact (object artifacts/{id}) and prints its ref.
func put(args []string) int {
	fs := flag.NewFlagSet("worker put", flag.ContinueOnError)
	id := fs.String("id", "", "artifact id (default: random)")
	mimeType := fs.String("mime", "", "MIME type (default: from the extension, else from the content)")
	prepareUsage(fs, "usage: worker put FILE [--id ID] [--mime TYPE] [worker settings]\n\nUploads FILE as the artifact artifacts/{id} (S3_ENDPOINT, else the local store `worker run` made\nunder DATA_DIR: refused when there is none) and prints its ref, artifact:{id}.", args)
	args = flagsFirst(args)
	cfg, rest, err := loadConfig(fs, args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitUsage
	}
	if len(rest) != 1 {
		fmt.Fprintln(os.Stderr, "usage: worker put FILE [--id ID] [--mime TYPE]")
		return exitUsage
	}
	file := rest[0]
	if *id == "" {
		*id = randomID()
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitFailure
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitFailure
	}
	if *mimeType == "" {
		// The worker's own detector (routing.Detect, as get_artifact uses): the same answer on every
		// machine, unlike mime.TypeByExtension, which reads the system's tables.
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(f, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
			return exitFailure
		}
		*mimeType = routing.Detect(routing.DetectInput{Filename: filepath.Base(file), Head: head[:n], Size: st.Size()}).MIME
		if _, err := f.Seek(0, 0); err != nil {
			fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
			return exitFailure
		}
	}
	if err := localStoreExists(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitFailure
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	store, err := service.OpenStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitFailure
	}
	meta := map[string]string{objectstore.MetaFilename: filepath.Base(file)}
	if _, err := store.Put(ctx, objectstore.ArtifactKey(*id), f, st.Size(), *mimeType, meta); err != nil {
		fmt.Fprintf(os.Stderr, "worker put: %v\n", err)
		return exitFailure
	}
	fmt.Printf("artifact:%s\n", *id)
	return exitOK
}

// flagsFirst moves positional arguments after the flags so `put FILE --id x` parses like
// `put --id x FILE`. Flags take their value as the next argument unless written -flag=value.
func flagsFirst(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			if !containsEq(a) && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flags, pos...)
}

func containsEq(s string) bool {
	for i := range len(s) {
		if s[i] == '=' {
			return true
		}
	}
	return false
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// localStoreExists refuses a put into a local store no worker made: without S3_ENDPOINT the store
// is a directory under DATA_DIR (./data by default, relative to where the command runs), which
// `worker run` creates. A put run from another directory would create a store of its own there,
// print a ref, and the running worker would answer artifact_not_found for it.
func localStoreExists(cfg service.Config) error {
	cfg.SetDefaults()
	if cfg.S3Endpoint != "" {
		return nil
	}
	dir := service.LocalStoreDir(cfg)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	abs, _ := filepath.Abs(dir)
	return fmt.Errorf("no worker's store at %s (DATA_DIR=%s, S3_ENDPOINT not set): `worker run` creates it; run put in the directory the worker runs in, or give it the worker's DATA_DIR (or S3_ENDPOINT and bucket)", abs, cfg.DataDir)
}
