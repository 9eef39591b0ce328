package objectstore

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// S3Config configures an S3 store. Zero durations and counts take the defaults documented on
// each field.
type S3Config struct {
	// Endpoint is "host" or "host:port", without scheme or path.
	Endpoint string
	// AccessKey and SecretKey are static credentials. Leave both empty with CredentialChain.
	AccessKey string
	SecretKey string
	// CredentialChain takes the credentials from the standard chain instead, first that answers:
	// the AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY(/AWS_SESSION_TOKEN) environment, the
	// MINIO_ACCESS_KEY/MINIO_SECRET_KEY environment, then minio-go's IAM provider: web identity
	// (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN, as EKS IRSA and pod identity webhooks set them),
	// ECS task role, EC2 instance role. Temporary credentials are refreshed before they expire.
	CredentialChain bool
	// RootCAs, when set, replaces the system roots for verifying the endpoint's certificate (a
	// private CA). Only with UseSSL and the default transport.
	RootCAs *x509.CertPool
	// Bucket holds every object of the store.
	Bucket string
	// UseSSL selects HTTPS.
	UseSSL bool
	// Region of the bucket; default "us-east-1". Setting it saves a bucket-location request.
	Region string
	// MaxRetries is how many times minio-go tries one request, the first time included;
	// default 3. Transient failures that survive these attempts are returned as ErrUnavailable,
	// for the caller's own back-off. Each retry waits 200ms-1s.
	MaxRetries int
	// DialTimeout bounds connecting to the endpoint; default 5s.
	DialTimeout time.Duration
	// ResponseHeaderTimeout bounds waiting for a response once a request is sent; default 30s.
	ResponseHeaderTimeout time.Duration
	// PartSize is the multipart upload part size, also the memory Put buffers per upload when
	// the size is unknown; default 16 MiB. Objects of known size below it are sent in one PUT.
	PartSize uint64
	// Transport, when set, replaces the HTTP transport (DialTimeout and ResponseHeaderTimeout
	// are then ignored). For custom TLS roots or instrumentation.
	Transport http.RoundTripper
}

func (c *S3Config) setDefaults() {
	c.Region = cmp.Or(c.Region, "us-east-1")
	c.MaxRetries = cmp.Or(c.MaxRetries, 3)
	c.DialTimeout = cmp.Or(c.DialTimeout, 5*time.Second)
	c.ResponseHeaderTimeout = cmp.Or(c.ResponseHeaderTimeout, 30*time.Second)
	c.PartSize = cmp.Or(c.PartSize, 16<<20)
}

// Validate reports every invalid field, by name.
func (c S3Config) Validate() error {
	var errs []error
	switch {
	case c.Endpoint == "":
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, errors.New("Endpoint is required"))
	case strings.Contains(c.Endpoint, "://") || strings.ContainsAny(c.Endpoint, "/?#"):
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Endpoint %q must be host[:port], without scheme or path", c.Endpoint))
	}
	switch {
	case c.CredentialChain && (c.AccessKey != "" || c.SecretKey != ""):
		errs = append(errs, errors.New("AccessKey and SecretKey must be empty with CredentialChain"))
	case !c.CredentialChain && c.AccessKey == "":
		errs = append(errs, errors.New("AccessKey is required"))
	}
	if !c.CredentialChain && c.SecretKey == "" {
		errs = append(errs, errors.New("SecretKey is required"))
	}
	if c.RootCAs != nil && (!c.UseSSL || c.Transport != nil) {
		errs = append(errs, errors.New("RootCAs needs UseSSL and the default transport"))
	}
	if err := s3utils.CheckValidBucketNameStrict(c.Bucket); err != nil {
		errs = append(errs, fmt.Errorf("Bucket %q: %w", c.Bucket, err))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("MaxRetries %d must not be negative", c.MaxRetries))
	}
	if c.DialTimeout < 0 {
		errs = append(errs, fmt.Errorf("DialTimeout %s must not be negative", c.DialTimeout))
	}
	if c.ResponseHeaderTimeout < 0 {
		errs = append(errs, fmt.Errorf("ResponseHeaderTimeout %s must not be negative", c.ResponseHeaderTimeout))
	}
	if c.PartSize != 0 && c.PartSize < 5<<20 {
		errs = append(errs, fmt.Errorf("PartSize %d must be at least 5 MiB", c.PartSize))
	}
	if len(errs) > 0 {
		return fmt.Errorf("objectstore: invalid S3Config: %w", errors.Join(errs...))
	}
	return nil
}

// S3 is a store in one bucket of S3-compatible storage. It is safe for concurrent use.
type S3 struct {
	client   *minio.Client
	core     minio.Core
	bucket   string
	region   string
	partSize uint64
}

// NewS3 returns an S3 store. It does no I/O: call EnsureBucket or Ping to reach the storage.
func NewS3(cfg S3Config) (*S3, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	transport := cfg.Transport
	if transport == nil {
		tr, err := minio.DefaultTransport(cfg.UseSSL)
		if err != nil {
			return nil, fmt.Errorf("objectstore: S3 transport: %w", err)
		}
		tr.DialContext = (&net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}).DialContext
		tr.ResponseHeaderTimeout = cfg.ResponseHeaderTimeout
		if cfg.RootCAs != nil {
			tr.TLSClientConfig.RootCAs = cfg.RootCAs
		}
		transport = tr
	}
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	if cfg.CredentialChain {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.EnvMinio{},
			// The instance metadata endpoint does not exist off the cloud: bound the wait for it.
			&credentials.IAM{Client: &http.Client{Timeout: 10 * time.Second}},
		})
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        creds,
		Secure:       cfg.UseSSL,
		Region:       cfg.Region,
		Transport:    transport,
		MaxRetries:   cfg.MaxRetries,
		BucketLookup: minio.BucketLookupAuto,
	})
	if err != nil {
		return nil, fmt.Errorf("objectstore: S3 client: %w", err)
	}
	return &S3{client: client, core: minio.Core{Client: client}, bucket: cfg.Bucket, region: cfg.Region, partSize: cfg.PartSize}, nil
}

// Bucket returns the store's bucket name.
func (s *S3) Bucket() string { return s.bucket }

// EnsureBucket creates the bucket when it does not exist. It is idempotent and safe when several
// replicas race to create the same bucket.
func (s *S3) EnsureBucket(ctx context.Context) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s3Error("ensure bucket", s.bucket, err)
	}
	if exists {
		return nil
	}
	err = s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region})
	if err == nil {
		return nil
	}
	switch minio.ToErrorResponse(err).Code {
	case "BucketAlreadyOwnedByYou", "BucketAlreadyExists":
		// Another replica won the race (or the name belongs to someone else: then we cannot
		// see it and BucketExists tells).
		if exists, err2 := s.client.BucketExists(ctx, s.bucket); err2 == nil && exists {
			return nil
		}
	}
	return s3Error("ensure bucket", s.bucket, err)
}

// Ping checks that the storage answers and the bucket exists. A missing bucket is ErrUnavailable.
func (s *S3) Ping(ctx context.Context) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s3Error("ping", s.bucket, err)
	}
	if !exists {
		return &opError{op: "ping", key: s.bucket, kind: ErrUnavailable, err: errString("bucket does not exist")}
	}
	return nil
}

// Stat returns the object's Info without its content.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidateKey(key); err != nil {
		return Info{}, err
	}
	oi, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s3Error("stat", key, err)
	}
	return s3Info(key, oi), nil
}

// Open starts reading the object: one GET whose status is checked before Open returns, so a
// missing key is ErrNotFound here and not on the first Read. The caller closes the reader; ctx
// bounds the whole read. Read errors are classified like the other errors of this package.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, Info, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Info{}, err
	}
	body, oi, _, err := s.core.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, Info{}, s3Error("open", key, err)
	}
	return &s3Reader{body: body, key: key}, s3Info(key, oi), nil
}

// ReadAll returns the content of an object of at most max bytes. A larger object is not
// downloaded: the error is ErrTooLarge and the Info is filled.
func (s *S3) ReadAll(ctx context.Context, key string, max int64) ([]byte, Info, error) {
	return readAll(ctx, s, key, max)
}

// Put stores size bytes from r under key, replacing any object there, and returns its Info
// (LastModified is the client's clock when the server does not report it). A size of -1 means
// unknown: the content is then uploaded in parts of S3Config.PartSize. User metadata values are
// RFC 2047 encoded when they are not plain ASCII (see the package documentation).
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (Info, error) {
	meta, contentType, err := checkPut(key, size, contentType, meta)
	if err != nil {
		return Info{}, err
	}
	headers := make(map[string]string, len(meta))
	for k, v := range meta {
		headers["X-Amz-Meta-"+k] = encodeMetaValue(v)
	}
	if size >= 0 {
		if r, err = exactly(r, size); err != nil {
			return Info{}, &opError{op: "put", key: key, err: err}
		}
	}
	ui, err := s.client.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{
		ContentType:  contentType,
		UserMetadata: headers,
		PartSize:     s.partSize,
	})
	if err != nil {
		return Info{}, s3Error("put", key, err)
	}
	modified := ui.LastModified
	if modified.IsZero() {
		modified = time.Now().UTC()
	}
	return Info{Key: key, Size: ui.Size, ContentType: contentType, Metadata: meta, LastModified: modified, ETag: ui.ETag}, nil
}

// Delete removes the object; a missing key is not an error.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		return s3Error("delete", key, err)
	}
	return nil
}

func s3Info(key string, oi minio.ObjectInfo) Info {
	var meta map[string]string
	if len(oi.UserMetadata) > 0 {
		meta = make(map[string]string, len(oi.UserMetadata))
		for k, v := range oi.UserMetadata {
			meta[strings.ToLower(k)] = v // minio-go has already decoded RFC 2047 values
		}
	}
	return Info{Key: key, Size: oi.Size, ContentType: oi.ContentType, Metadata: meta, LastModified: oi.LastModified, ETag: oi.ETag}
}

// s3Reader classifies the errors of a streamed GET body.
type s3Reader struct {
	body io.ReadCloser
	key  string
}

func (r *s3Reader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if err != nil && err != io.EOF {
		err = s3Error("read", r.key, err)
	}
	return n, err
}

func (r *s3Reader) Close() error { return r.body.Close() }

// errShortContent: Put's reader ended before the size it announced. A caller bug, never retried.
var errShortContent = errors.New("content shorter than its announced size")

// exactly wraps r so that ending before size bytes fails with errShortContent: minio-go and
// net/http would otherwise report it as a network error (and retry it). A seekable r stays
// seekable, as a view starting at its current offset, so that minio-go can rewind it to retry.
func exactly(r io.Reader, size int64) (io.Reader, error) {
	e := exactReader{r: r, size: size}
	sk, ok := r.(io.Seeker)
	if !ok {
		return &e, nil
	}
	start, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return &exactReadSeeker{exactReader: e, seeker: sk, start: start}, nil
}

type exactReader struct {
	r          io.Reader
	size, read int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.read += int64(n)
	if err == io.EOF && e.read < e.size {
		err = fmt.Errorf("%w: %d of %d bytes", errShortContent, e.read, e.size)
	}
	return n, err
}

type exactReadSeeker struct {
	exactReader
	seeker io.Seeker
	start  int64
}

func (e *exactReadSeeker) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekStart {
		offset += e.start
	}
	pos, err := e.seeker.Seek(offset, whence)
	if err != nil {
		return 0, err
	}
	e.read = pos - e.start
	return e.read, nil
}
