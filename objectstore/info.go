package objectstore

import "time"

// Info describes a stored object.
type Info struct {
	// Key is the object's key.
	Key string
	// Size is the content length in bytes.
	Size int64
	// ContentType is the MIME type given to Put ("application/octet-stream" when none was).
	ContentType string
	// Metadata is the user metadata, keys lower-cased ("filename"); nil when there is none.
	Metadata map[string]string
	// LastModified is when the object was last written (S3: second precision).
	LastModified time.Time
	// ETag identifies the content version; it changes when the content does. For objects
	// written in one part it is the hex MD5 of the content (both stores).
	ETag string
}

// Filename returns the "filename" user metadata, "" when absent.
func (i Info) Filename() string { return i.Metadata[MetaFilename] }

// DefaultContentType is stored when Put is given an empty content type.
const DefaultContentType = "application/octet-stream"
