package objectstore

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Local is a store in a directory, for development and tests. Layout under its directory:
//
//	objects/{key}            the content, a plain file at the key's path
//	meta/{sha256(key)}.json  its content type, user metadata and ETag (JSON)
//	tmp/                     files being written, renamed into place when complete
//
// Writes are atomic (temporary file + rename) and the content and its metadata are swapped
// under a per-key lock, so within one process readers never see a partial object or content
// paired with another write's metadata. Local is safe for concurrent use by goroutines; several
// processes sharing one directory get atomic content but may briefly pair it with the metadata
// of a concurrent write, and a crash between the two renames can leave such a pair.
//
// Unlike S3, a key cannot be both an object and a prefix of other keys ("a/b" and "a/b/c"):
// the second Put fails with ErrInvalidKey. Directories left empty by Delete are kept.
type Local struct {
	objects string
	meta    string
	tmp     string
	locks   [64]sync.RWMutex
}

// NewLocal returns a store in dir, creating dir and its layout when missing.
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("objectstore: local dir %q: %w", dir, err)
	}
	l := &Local{
		objects: filepath.Join(abs, "objects"),
		meta:    filepath.Join(abs, "meta"),
		tmp:     filepath.Join(abs, "tmp"),
	}
	for _, d := range []string{l.objects, l.meta, l.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, localError("open store", dir, err)
		}
	}
	return l, nil
}

// sidecar is the JSON metadata file of an object.
type sidecar struct {
	Key         string            `json:"key"`
	ContentType string            `json:"contentType"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	ETag        string            `json:"etag"`
}

func (l *Local) objectPath(key string) string {
	return filepath.Join(l.objects, filepath.FromSlash(key))
}

func (l *Local) metaPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(l.meta, hex.EncodeToString(sum[:])+".json")
}

func (l *Local) lock(key string) *sync.RWMutex {
	h := fnv.New32a()
	h.Write([]byte(key))
	return &l.locks[h.Sum32()%uint32(len(l.locks))]
}

// Ping checks that the directory is writable.
func (l *Local) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &opError{op: "ping", err: err}
	}
	f, err := os.CreateTemp(l.tmp, "ping-*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return &opError{op: "ping", kind: ErrPermission, err: err}
		}
		return &opError{op: "ping", kind: ErrUnavailable, err: err}
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// Stat returns the object's Info without its content.
func (l *Local) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, &opError{op: "stat", key: key, err: err}
	}
	mu := l.lock(key)
	mu.RLock()
	fi, err := os.Stat(l.objectPath(key))
	var sc sidecar
	if err == nil {
		sc, err = l.readSidecar(key)
	}
	mu.RUnlock()
	if err != nil {
		return Info{}, localError("stat", key, err)
	}
	if fi.IsDir() {
		return Info{}, &opError{op: "stat", key: key, kind: ErrNotFound}
	}
	return localInfo(key, fi, sc), nil
}

// Open opens the object for reading. The caller closes the reader; reads fail once ctx is done.
func (l *Local) Open(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Info{}, &opError{op: "open", key: key, err: err}
	}
	mu := l.lock(key)
	mu.RLock()
	f, err := os.Open(l.objectPath(key))
	var (
		fi fs.FileInfo
		sc sidecar
	)
	if err == nil {
		fi, err = f.Stat()
		if err == nil {
			sc, err = l.readSidecar(key)
		}
		if err != nil {
			f.Close()
		}
	}
	mu.RUnlock()
	if err != nil {
		return nil, Info{}, localError("open", key, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, Info{}, &opError{op: "open", key: key, kind: ErrNotFound}
	}
	return &localReader{ctx: ctx, f: f, key: key}, localInfo(key, fi, sc), nil
}

// ReadAll returns the content of an object of at most max bytes. A larger object is not read:
// the error is ErrTooLarge and the Info is filled.
func (l *Local) ReadAll(ctx context.Context, key string, max int64) ([]byte, Info, error) {
	return readAll(ctx, l, key, max)
}

// Put stores size bytes from r under key (size -1: all of r), replacing any object there.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (Info, error) {
	meta, contentType, err := checkPut(key, size, contentType, meta)
	if err != nil {
		return Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return Info{}, &opError{op: "put", key: key, err: err}
	}
	data, fi, etag, err := l.writeTemp(ctx, r, size)
	if err != nil {
		return Info{}, localError("put", key, err)
	}
	sc := sidecar{Key: key, ContentType: contentType, Metadata: meta, ETag: etag}
	metaTmp, err := l.writeSidecarTemp(sc)
	if err == nil {
		err = l.commit(key, data, metaTmp)
	} else {
		err = localError("put", key, err)
	}
	if err != nil {
		// Only on failure: once renamed, these names may already belong to another Put.
		os.Remove(data)
		if metaTmp != "" {
			os.Remove(metaTmp)
		}
		return Info{}, err
	}
	return localInfo(key, fi, sc), nil
}

// writeTemp copies r into a new temporary file and returns its name, its FileInfo after the
// write and the hex MD5 of the content.
func (l *Local) writeTemp(ctx context.Context, r io.Reader, size int64) (name string, fi fs.FileInfo, etag string, err error) {
	f, err := os.CreateTemp(l.tmp, "put-*")
	if err != nil {
		return "", nil, "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := md5.New()
	src := io.Reader(&ctxReader{ctx: ctx, r: r})
	if size >= 0 {
		src = io.LimitReader(src, size)
	}
	n, err := io.Copy(io.MultiWriter(f, h), src)
	if err != nil {
		return "", nil, "", err
	}
	if size >= 0 && n != size {
		return "", nil, "", fmt.Errorf("content is %d bytes, size says %d: %w", n, size, io.ErrUnexpectedEOF)
	}
	if err = f.Chmod(0o644); err != nil {
		return "", nil, "", err
	}
	if err = f.Sync(); err != nil {
		return "", nil, "", err
	}
	if fi, err = f.Stat(); err != nil {
		return "", nil, "", err
	}
	if err = f.Close(); err != nil {
		return "", nil, "", err
	}
	return f.Name(), fi, hex.EncodeToString(h.Sum(nil)), nil
}

func (l *Local) writeSidecarTemp(sc sidecar) (string, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(l.tmp, "meta-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// commit renames the content and the sidecar into place under the key's lock.
func (l *Local) commit(key, data, metaTmp string) error {
	dst := l.objectPath(key)
	mu := l.lock(key)
	mu.Lock()
	defer mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return &opError{op: "put", key: key, kind: ErrInvalidKey, err: errString("a prefix of the key is an object")}
		}
		return localError("put", key, err)
	}
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		return &opError{op: "put", key: key, kind: ErrInvalidKey, err: errString("the key is a prefix of other objects")}
	}
	if err := os.Rename(data, dst); err != nil {
		return localError("put", key, err)
	}
	if err := os.Rename(metaTmp, l.metaPath(key)); err != nil {
		return localError("put", key, err)
	}
	return nil
}

// Delete removes the object; a missing key is not an error.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return &opError{op: "delete", key: key, err: err}
	}
	dst := l.objectPath(key)
	mu := l.lock(key)
	mu.Lock()
	defer mu.Unlock()
	if fi, err := os.Lstat(dst); err != nil || fi.IsDir() {
		if err != nil && !isNotExist(err) {
			return localError("delete", key, err)
		}
		return nil // missing, or only a prefix of other keys
	}
	if err := os.Remove(dst); err != nil && !isNotExist(err) {
		return localError("delete", key, err)
	}
	if err := os.Remove(l.metaPath(key)); err != nil && !isNotExist(err) {
		return localError("delete", key, err)
	}
	return nil
}

// readSidecar reads the object's metadata. An object without a sidecar (a file copied into
// objects/ by hand) gets the default content type, no metadata and an empty ETag.
func (l *Local) readSidecar(key string) (sidecar, error) {
	b, err := os.ReadFile(l.metaPath(key))
	if isNotExist(err) {
		return sidecar{Key: key, ContentType: DefaultContentType}, nil
	}
	if err != nil {
		return sidecar{}, err
	}
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return sidecar{}, fmt.Errorf("metadata sidecar of %q: %w", key, err)
	}
	return sc, nil
}

func localInfo(key string, fi fs.FileInfo, sc sidecar) Info {
	var meta map[string]string
	if len(sc.Metadata) > 0 {
		meta = make(map[string]string, len(sc.Metadata))
		for k, v := range sc.Metadata {
			meta[k] = v
		}
	}
	return Info{Key: key, Size: fi.Size(), ContentType: sc.ContentType, Metadata: meta, LastModified: fi.ModTime().UTC(), ETag: sc.ETag}
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// localError classifies a file system error: missing -> ErrNotFound, permission ->
// ErrPermission, a cancelled or expired context as such.
func localError(op, key string, err error) error {
	var kind error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		kind = ErrUnavailable
	case errors.Is(err, context.Canceled):
	case isNotExist(err):
		kind = ErrNotFound
	case errors.Is(err, fs.ErrPermission):
		kind = ErrPermission
	}
	return &opError{op: op, key: key, kind: kind, err: err}
}

// localReader is an open object; reads fail once its context is done.
type localReader struct {
	ctx context.Context
	f   *os.File
	key string
}

func (r *localReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, localError("read", r.key, err)
	}
	n, err := r.f.Read(p)
	if err != nil && err != io.EOF {
		err = localError("read", r.key, err)
	}
	return n, err
}

func (r *localReader) Close() error { return r.f.Close() }

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
