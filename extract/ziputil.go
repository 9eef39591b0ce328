package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// maxMemberBytes bounds what one ZIP member may inflate to; a member larger than that is a
// decompression bomb or not a document we should read whole.
const maxMemberBytes = 64 << 20

// errTooBig is wrapped in ErrUnreadable when a member inflates past maxMemberBytes.
var errTooBig = errors.New("member inflates past the size limit")

// archive is an opened ZIP document.
type archive struct {
	zr    *zip.Reader
	files map[string]*zip.File
}

func openArchive(data []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, unreadable(err)
	}
	a := &archive{zr: zr, files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		a.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	return a, nil
}

// open returns a reader of the named member, limited to maxMemberBytes.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f, ok := a.files[strings.TrimPrefix(name, "/")]
	if !ok {
		return nil, fmt.Errorf("%w: missing %s", ErrUnreadable, name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, unreadable(err)
	}
	return &limitedReader{r: rc, left: maxMemberBytes}, nil
}

// has reports whether the archive holds the named member.
func (a *archive) has(name string) bool {
	_, ok := a.files[strings.TrimPrefix(name, "/")]
	return ok
}

type limitedReader struct {
	r    io.ReadCloser
	left int64
}

// Read reads at most one byte more than is left, to tell a member that ends exactly at the limit
// (EOF next) from one that goes past it.
func (l *limitedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, fmt.Errorf("%w: %w", ErrUnreadable, errTooBig)
	}
	return n, err
}

func (l *limitedReader) Close() error { return l.r.Close() }

// walk streams the XML tokens of a member to fn, checking ctx every few thousand tokens. An error
// from fn stops the walk and is returned as it is.
func (a *archive) walk(ctx context.Context, name string, fn func(dec *xml.Decoder, tok xml.Token) error) error {
	rc, err := a.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	dec.Strict = false
	dec.Entity = xml.HTMLEntity // XHTML (EPUB) may use HTML's named entities
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := dec.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return unreadable(fmt.Errorf("%s: %w", name, err))
		}
		if err := fn(dec, tok); err != nil {
			return err
		}
	}
}

// relationships reads the targets of a part's relationships ("_rels/x.xml.rels"): id → member
// path, resolved against the part's folder.
func (a *archive) relationships(ctx context.Context, part string) (map[string]string, error) {
	dir, file := path.Split(part)
	relsName := dir + "_rels/" + file + ".rels"
	rels := map[string]string{}
	err := a.walk(ctx, relsName, func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Relationship" {
			id, target, mode := attr(se, "Id"), attr(se, "Target"), attr(se, "TargetMode")
			if mode == "External" {
				return nil
			}
			if strings.HasPrefix(target, "/") {
				rels[id] = strings.TrimPrefix(target, "/")
			} else {
				rels[id] = path.Clean(path.Join(dir, target))
			}
		}
		return nil
	})
	return rels, err
}

// attr returns the value of the attribute with the given local name (any namespace prefix).
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
