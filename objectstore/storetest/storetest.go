// Package storetest is the contract suite of objectstore: every store implementation runs Run and
// must pass it unchanged.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/objectstore"
)

// Store is the method set every objectstore implementation provides.
type Store interface {
	Stat(ctx context.Context, key string) (objectstore.Info, error)
	Open(ctx context.Context, key string) (io.ReadCloser, objectstore.Info, error)
	ReadAll(ctx context.Context, key string, max int64) ([]byte, objectstore.Info, error)
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (objectstore.Info, error)
	Delete(ctx context.Context, key string) error
	Ping(ctx context.Context) error
}

// opTimeout bounds every operation of the suite.
const opTimeout = 30 * time.Second

// Run runs the contract suite. newStore returns an empty store each time it is called (for S3, a
// fresh bucket); it registers its own cleanup.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"NotFound", testNotFound},
		{"TooLarge", testTooLarge},
		{"Overwrite", testOverwrite},
		{"Delete", testDelete},
		{"InvalidKeys", testInvalidKeys},
		{"MetadataKeysLowerCased", testMetadataKeysLowerCased},
		{"UnknownSize", testUnknownSize},
		{"ShortReader", testShortReader},
		{"ConcurrentPuts", testConcurrentPuts},
		{"ConcurrentOverwrites", testConcurrentOverwrites},
		{"Ping", testPing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// Ctx returns a context for one operation of test t.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Bytes returns n deterministic pseudo-random bytes (all byte values, NULs included).
func Bytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

type object struct {
	name        string
	key         string
	content     []byte
	contentType string
	meta        map[string]string
	wantType    string // defaults to contentType
}

func testRoundTrip(t *testing.T, s Store) {
	tests := []object{
		{name: "binary with NULs", key: "artifacts/bin", content: []byte{0, 1, 0, 0xff, 0xfe, 0, '\n', 0}, contentType: "application/octet-stream", meta: map[string]string{"filename": "blob.bin"}},
		{name: "UTF-8 text", key: "artifacts/text", content: []byte("héllo 世界\r\n\tend"), contentType: "text/plain; charset=utf-8", meta: map[string]string{"filename": "notes.txt"}},
		{name: "empty", key: "artifacts/empty", content: []byte{}, contentType: "text/plain", meta: map[string]string{"filename": "empty.txt"}},
		{name: "5 MB", key: "artifacts/big", content: Bytes(5<<20, 1), contentType: "application/pdf", meta: map[string]string{"filename": "big.pdf"}},
		{name: "non-ASCII filename", key: "artifacts/report", content: []byte("%PDF-1.4"), contentType: "application/pdf", meta: map[string]string{"filename": "报告 final.pdf"}},
		{name: "long non-ASCII filename", key: "artifacts/long-name", content: []byte("x"), contentType: "text/markdown", meta: map[string]string{"filename": strings.Repeat("很长的文件名", 20) + ".md"}},
		{name: "filename that looks RFC 2047 encoded", key: "artifacts/tricky", content: []byte("x"), contentType: "text/plain", meta: map[string]string{"filename": "=?utf-8?b?Zm9v?=.txt"}},
		{name: "filename with outer blanks", key: "artifacts/blanks", content: []byte("x"), contentType: "text/plain", meta: map[string]string{"filename": "  spaced name.txt "}},
		{name: "several metadata values", key: "artifacts/multi", content: []byte("x"), contentType: "image/png", meta: map[string]string{"filename": "a.png", "agent-id": "agent-7", "note": "ünïcödé"}},
		{name: "no metadata", key: "artifacts/no-meta", content: []byte("x"), contentType: "text/plain"},
		{name: "default content type", key: "artifacts/no-type", content: []byte("x"), wantType: objectstore.DefaultContentType},
		{name: "nested unicode key with spaces", key: "workspaces/ws1/src/a b/报告.md", content: []byte("# 报告\n"), contentType: "text/markdown", meta: map[string]string{"filename": "报告.md"}},
		{name: "key with odd characters", key: "workspaces/ws-2/dir (1)/file+name&x=1;y#z%20.txt", content: []byte("odd"), contentType: "text/plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wantType == "" {
				tc.wantType = tc.contentType
			}
			before := time.Now().Add(-2 * time.Second)
			put, err := s.Put(Ctx(t), tc.key, bytes.NewReader(tc.content), int64(len(tc.content)), tc.contentType, tc.meta)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			after := time.Now().Add(2 * time.Second)
			checkInfo(t, "Put", put, tc, before, after)

			st, err := s.Stat(Ctx(t), tc.key)
			if err != nil {
				t.Fatalf("Stat: %v", err)
			}
			checkInfo(t, "Stat", st, tc, before, after)
			if st.ETag != put.ETag {
				t.Errorf("Stat ETag %q, Put returned %q", st.ETag, put.ETag)
			}

			rc, oi, err := s.Open(Ctx(t), tc.key)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got, err := io.ReadAll(rc)
			if cerr := rc.Close(); cerr != nil {
				t.Errorf("Close: %v", cerr)
			}
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			checkInfo(t, "Open", oi, tc, before, after)
			checkContent(t, "Open", got, tc.content)

			data, ri, err := s.ReadAll(Ctx(t), tc.key, int64(len(tc.content)))
			if err != nil {
				t.Fatalf("ReadAll(max = size): %v", err)
			}
			checkInfo(t, "ReadAll", ri, tc, before, after)
			checkContent(t, "ReadAll", data, tc.content)
		})
	}
}

func checkInfo(t *testing.T, op string, got objectstore.Info, want object, notBefore, notAfter time.Time) {
	t.Helper()
	if got.Key != want.key {
		t.Errorf("%s: Key %q, want %q", op, got.Key, want.key)
	}
	if got.Size != int64(len(want.content)) {
		t.Errorf("%s: Size %d, want %d", op, got.Size, len(want.content))
	}
	if got.ContentType != want.wantType {
		t.Errorf("%s: ContentType %q, want %q", op, got.ContentType, want.wantType)
	}
	if !sameMeta(got.Metadata, want.meta) {
		t.Errorf("%s: Metadata %q, want %q", op, got.Metadata, want.meta)
	}
	if got.Filename() != want.meta["filename"] {
		t.Errorf("%s: Filename() %q, want %q", op, got.Filename(), want.meta["filename"])
	}
	if got.ETag == "" {
		t.Errorf("%s: empty ETag", op)
	}
	if got.LastModified.Before(notBefore) || got.LastModified.After(notAfter) {
		t.Errorf("%s: LastModified %s not within [%s, %s]", op, got.LastModified, notBefore, notAfter)
	}
}

func sameMeta(a, b map[string]string) bool {
	return len(a) == len(b) && maps.Equal(a, b)
}

func checkContent(t *testing.T, op string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s: content differs: got %d bytes, want %d", op, len(got), len(want))
	}
}

func put(t *testing.T, s Store, key string, content []byte, contentType string, meta map[string]string) objectstore.Info {
	t.Helper()
	info, err := s.Put(Ctx(t), key, bytes.NewReader(content), int64(len(content)), contentType, meta)
	if err != nil {
		t.Fatalf("Put %q: %v", key, err)
	}
	return info
}

// wantErr fails unless err matches want and none of the other sentinels.
func wantErr(t *testing.T, op string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", op, err, want)
		return
	}
	for _, other := range []error{objectstore.ErrNotFound, objectstore.ErrTooLarge, objectstore.ErrPermission, objectstore.ErrInvalidKey, objectstore.ErrUnavailable} {
		if other != want && errors.Is(err, other) {
			t.Errorf("%s: error %v also matches %v", op, err, other)
		}
	}
}

func testNotFound(t *testing.T, s Store) {
	put(t, s, "workspaces/ws1/dir/file.txt", []byte("x"), "text/plain", nil)
	for _, key := range []string{
		"artifacts/missing",
		"workspaces/ws1/dir/other.txt",
		"workspaces/ws1/dir", // a prefix of an object is not an object
		"workspaces/ws1/dir/file.txt/below",
		"missing/报告 final.pdf",
	} {
		t.Run(key, func(t *testing.T) {
			_, err := s.Stat(Ctx(t), key)
			wantErr(t, "Stat", err, objectstore.ErrNotFound)
			rc, _, err := s.Open(Ctx(t), key)
			if rc != nil {
				rc.Close()
				t.Error("Open returned a reader for a missing key")
			}
			wantErr(t, "Open", err, objectstore.ErrNotFound)
			data, _, err := s.ReadAll(Ctx(t), key, 1<<20)
			if data != nil {
				t.Error("ReadAll returned data for a missing key")
			}
			wantErr(t, "ReadAll", err, objectstore.ErrNotFound)
		})
	}
}

func testTooLarge(t *testing.T, s Store) {
	content := Bytes(1000, 2)
	meta := map[string]string{"filename": "大.bin"}
	put(t, s, "artifacts/large", content, "application/zip", meta)
	put(t, s, "artifacts/zero", nil, "text/plain", nil)
	tests := []struct {
		key     string
		max     int64
		wantErr error
		size    int64
	}{
		{"artifacts/large", 999, objectstore.ErrTooLarge, 1000},
		{"artifacts/large", 0, objectstore.ErrTooLarge, 1000},
		{"artifacts/large", 1000, nil, 1000},
		{"artifacts/large", 1 << 30, nil, 1000},
		{"artifacts/zero", 0, nil, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s max %d", tc.key, tc.max), func(t *testing.T) {
			data, info, err := s.ReadAll(Ctx(t), tc.key, tc.max)
			if tc.wantErr != nil {
				wantErr(t, "ReadAll", err, tc.wantErr)
				if data != nil {
					t.Errorf("ReadAll returned %d bytes with %v", len(data), err)
				}
			} else if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if info.Size != tc.size || info.Key != tc.key {
				t.Errorf("Info %+v, want key %q size %d", info, tc.key, tc.size)
			}
			if tc.key == "artifacts/large" && (info.Filename() != meta["filename"] || info.ContentType != "application/zip") {
				t.Errorf("Info %+v lacks content type or filename", info)
			}
		})
	}
	if _, _, err := s.ReadAll(Ctx(t), "artifacts/large", -1); err == nil {
		t.Error("ReadAll with a negative limit succeeded")
	}
}

func testOverwrite(t *testing.T, s Store) {
	const key = "workspaces/ws1/notes.md"
	first := put(t, s, key, []byte("first version, longer"), "text/markdown", map[string]string{"filename": "notes.md", "agent-id": "a1"})
	second := put(t, s, key, []byte("second"), "text/plain", map[string]string{"filename": "notes.txt"})
	if first.ETag == second.ETag {
		t.Errorf("ETag %q unchanged by a new content", first.ETag)
	}
	data, info, err := s.ReadAll(Ctx(t), key, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "second" || info.ContentType != "text/plain" || info.ETag != second.ETag {
		t.Errorf("after overwrite: %q %+v", data, info)
	}
	if want := map[string]string{"filename": "notes.txt"}; !sameMeta(info.Metadata, want) {
		t.Errorf("metadata %q, want exactly %q (no leftovers of the first version)", info.Metadata, want)
	}
}

func testDelete(t *testing.T, s Store) {
	const key = "artifacts/to-delete"
	put(t, s, key, []byte("bye"), "text/plain", map[string]string{"filename": "bye.txt"})
	put(t, s, "workspaces/ws1/keep/child.txt", []byte("stay"), "text/plain", nil)
	for i, k := range []string{key, key, "artifacts/never-existed", "workspaces/ws1/keep"} {
		if err := s.Delete(Ctx(t), k); err != nil {
			t.Errorf("Delete #%d %q: %v", i, k, err)
		}
	}
	_, err := s.Stat(Ctx(t), key)
	wantErr(t, "Stat after Delete", err, objectstore.ErrNotFound)
	if _, err := s.Stat(Ctx(t), "workspaces/ws1/keep/child.txt"); err != nil {
		t.Errorf("deleting a prefix removed an object under it: %v", err)
	}
	// The key can be written again.
	put(t, s, key, []byte("again"), "text/plain", nil)
	if data, _, err := s.ReadAll(Ctx(t), key, 100); err != nil || string(data) != "again" {
		t.Errorf("ReadAll after re-Put: %q, %v", data, err)
	}
}

func testInvalidKeys(t *testing.T, s Store) {
	for _, key := range []string{
		"",
		"/artifacts/abs",
		"..",
		"artifacts/../etc/passwd",
		"workspaces/ws1/..",
		"./artifacts/x",
		"artifacts//x",
		"artifacts/x/",
		"artifacts/nul\x00byte",
		"artifacts/bad-utf8-\xff",
		"artifacts/" + strings.Repeat("k", objectstore.MaxKeyLen),
	} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			_, err := s.Put(Ctx(t), key, strings.NewReader("x"), 1, "text/plain", nil)
			wantErr(t, "Put", err, objectstore.ErrInvalidKey)
			_, err = s.Stat(Ctx(t), key)
			wantErr(t, "Stat", err, objectstore.ErrInvalidKey)
			rc, _, err := s.Open(Ctx(t), key)
			if rc != nil {
				rc.Close()
			}
			wantErr(t, "Open", err, objectstore.ErrInvalidKey)
			_, _, err = s.ReadAll(Ctx(t), key, 10)
			wantErr(t, "ReadAll", err, objectstore.ErrInvalidKey)
			wantErr(t, "Delete", s.Delete(Ctx(t), key), objectstore.ErrInvalidKey)
		})
	}
}

func testMetadataKeysLowerCased(t *testing.T, s Store) {
	put(t, s, "artifacts/case", []byte("x"), "text/plain", map[string]string{"FileName": "Mixed Case.TXT", "X-Agent": "A"})
	info, err := s.Stat(Ctx(t), "artifacts/case")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"filename": "Mixed Case.TXT", "x-agent": "A"}; !sameMeta(info.Metadata, want) {
		t.Errorf("Metadata %q, want %q", info.Metadata, want)
	}
	for _, bad := range []map[string]string{{"": "x"}, {"with space": "x"}, {"ключ": "x"}, {"a": "\xff"}, {"Dup": "1", "dup": "2"}} {
		if _, err := s.Put(Ctx(t), "artifacts/bad-meta", strings.NewReader("x"), 1, "", bad); err == nil {
			t.Errorf("Put with metadata %q succeeded", bad)
		}
	}
}

func testUnknownSize(t *testing.T, s Store) {
	content := Bytes(300<<10, 3)
	info, err := s.Put(Ctx(t), "artifacts/unknown-size", bytes.NewReader(content), -1, "application/octet-stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size != int64(len(content)) {
		t.Errorf("Put Info.Size %d, want %d", info.Size, len(content))
	}
	data, _, err := s.ReadAll(Ctx(t), "artifacts/unknown-size", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	checkContent(t, "ReadAll", data, content)
}

func testShortReader(t *testing.T, s Store) {
	const key = "artifacts/short"
	_, err := s.Put(Ctx(t), key, strings.NewReader("12345"), 10, "text/plain", nil)
	if err == nil {
		t.Fatal("Put of 5 bytes announced as 10 succeeded")
	}
	if errors.Is(err, objectstore.ErrUnavailable) {
		t.Errorf("a short reader is the caller's bug, not a transient failure: %v", err)
	}
	_, err = s.Stat(Ctx(t), key)
	wantErr(t, "Stat after failed Put", err, objectstore.ErrNotFound)
}

func testConcurrentPuts(t *testing.T, s Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			key := fmt.Sprintf("workspaces/ws-par/dir%d/file %d.bin", i%4, i)
			content := Bytes(10<<10+i, uint64(i))
			if _, err := s.Put(Ctx(t), key, bytes.NewReader(content), int64(len(content)), "application/octet-stream", map[string]string{"filename": fmt.Sprintf("文件 %d", i)}); err != nil {
				//lint:ignore ST1005 the message starts with the key's name, as the caller wrote it
				errs <- fmt.Errorf("Put %q: %w", key, err)
				return
			}
			data, info, err := s.ReadAll(Ctx(t), key, 1<<20)
			switch {
			case err != nil:
				errs <- fmt.Errorf("ReadAll %q: %w", key, err)
			case !bytes.Equal(data, content):
				errs <- fmt.Errorf("%q: content differs", key)
			case info.Filename() != fmt.Sprintf("文件 %d", i):
				errs <- fmt.Errorf("%q: filename %q", key, info.Filename())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testConcurrentOverwrites checks that readers of a key being overwritten always see a content
// with its own metadata, never a mix of two writes or a partial object.
func testConcurrentOverwrites(t *testing.T, s Store) {
	const key = "artifacts/contended"
	version := func(i int) ([]byte, map[string]string) {
		c := bytes.Repeat([]byte{byte('a' + i)}, 64<<10+i*1000)
		return c, map[string]string{"filename": string(rune('a'+i)) + ".txt"}
	}
	c0, m0 := version(0)
	put(t, s, key, c0, "text/plain", m0)

	ctx, cancel := context.WithTimeout(t.Context(), opTimeout)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 2 {
		wg.Go(func() {
			for i := range 10 {
				c, m := version((w*10 + i) % 8)
				if _, err := s.Put(ctx, key, bytes.NewReader(c), int64(len(c)), "text/plain", m); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 20 {
				data, info, err := s.ReadAll(ctx, key, 1<<20)
				if err != nil {
					errs <- err
					return
				}
				if len(data) == 0 || int64(len(data)) != info.Size || !bytes.Equal(data, bytes.Repeat(data[:1], len(data))) ||
					info.Filename() != string(data[:1])+".txt" {
					errs <- fmt.Errorf("torn read: %d bytes starting %q, Info %+v", len(data), data[:min(1, len(data))], info)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testPing(t *testing.T, s Store) {
	if err := s.Ping(Ctx(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}
