package objectstore

import (
	"context"
	"fmt"
	"io"

	"github.com/agentworks/artifact-worker/internal/membudget"
)

// opener is what readAll needs of a store.
type opener interface {
	Open(ctx context.Context, key string) (io.ReadCloser, Info, error)
}

// readAll implements ReadAll for both stores with one request: Open (one GET for S3) reports the
// object's size before any of its body is read, so an object larger than max is closed unread (its
// body is never downloaded beyond what is already in flight); the read itself is bounded too.
func readAll(ctx context.Context, s opener, key string, max int64) ([]byte, Info, error) {
	if max < 0 {
		return nil, Info{}, &opError{op: "read", key: key, err: fmt.Errorf("negative limit %d", max)}
	}
	// One request: the GET's headers give the size, and a body over the limit is closed unread.
	rc, info, err := s.Open(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	defer rc.Close()
	if info.Size > max {
		return nil, info, tooLarge(key, info.Size, max)
	}
	// A request in the pipeline is charged for what reading and answering this artifact holds,
	// before the bytes are allocated; it may wait here for room (internal/membudget).
	if err := membudget.Reserve(ctx, membudget.ArtifactFactor*info.Size); err != nil {
		return nil, info, &opError{op: "read", key: key, err: fmt.Errorf("waiting for memory to read %d bytes: %w", info.Size, err)}
	}
	buf := make([]byte, 0, info.Size+1)
	data, err := readFullLimited(rc, buf, max)
	if err != nil {
		return nil, info, err
	}
	if int64(len(data)) > max {
		return nil, info, tooLarge(key, int64(len(data)), max)
	}
	return data, info, nil
}

// readFullLimited appends up to max+1 bytes of r to buf.
func readFullLimited(r io.Reader, buf []byte, max int64) ([]byte, error) {
	lr := io.LimitReader(r, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(key string, size, max int64) error {
	return &opError{op: "read", key: key, kind: ErrTooLarge, err: fmt.Errorf("%d bytes, limit %d", size, max)}
}

// checkPut validates Put's arguments and normalizes metadata and content type.
func checkPut(key string, size int64, contentType string, meta map[string]string) (map[string]string, string, error) {
	if err := ValidateKey(key); err != nil {
		return nil, "", err
	}
	if size < -1 {
		return nil, "", &opError{op: "put", key: key, err: fmt.Errorf("invalid size %d", size)}
	}
	meta, err := normalizeMeta(meta)
	if err != nil {
		return nil, "", &opError{op: "put", key: key, err: err}
	}
	if contentType == "" {
		contentType = DefaultContentType
	}
	return meta, contentType, nil
}
