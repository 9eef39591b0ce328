package dialects

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// node is a JSON value that keeps its members' order: an object, an array, or any other value
// as it was written. It lets the turn helpers rewrite a part of a message and leave the rest
// byte for byte.
type node struct {
	obj   []field // an object (isObj)
	arr   []*node // an array (isArr)
	raw   json.RawMessage
	isObj bool
	isArr bool
}

type field struct {
	key string
	val *node
}

func parseNode(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return n, nil
}

func decodeNode(dec *json.Decoder) (*node, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	return nodeOf(raw)
}

// nodeOf parses objects and arrays (recursively); other values stay raw.
func nodeOf(raw json.RawMessage) (*node, error) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return &node{raw: raw}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{isObj: tok == json.Delim('{'), isArr: tok == json.Delim('[')}
	for dec.More() {
		key := ""
		if n.isObj {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key = k.(string)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		c, err := nodeOf(v)
		if err != nil {
			return nil, err
		}
		if n.isObj {
			n.obj = append(n.obj, field{key, c})
		} else {
			n.arr = append(n.arr, c)
		}
	}
	return n, nil
}

func (n *node) write(b *bytes.Buffer) {
	switch {
	case n.isObj:
		b.WriteByte('{')
		for i, f := range n.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(marshal(f.key))
			b.WriteByte(':')
			f.val.write(b)
		}
		b.WriteByte('}')
	case n.isArr:
		b.WriteByte('[')
		for i, c := range n.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			c.write(b)
		}
		b.WriteByte(']')
	default:
		b.Write(n.raw)
	}
}

func (n *node) bytes() json.RawMessage {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

// get is the member key of an object node, or nil.
func (n *node) get(key string) *node {
	if n == nil || !n.isObj {
		return nil
	}
	for _, f := range n.obj {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// str is the node's value as a string ("" for anything else).
func (n *node) str() string {
	if n == nil || n.isObj || n.isArr {
		return ""
	}
	var s string
	if json.Unmarshal(n.raw, &s) != nil {
		return ""
	}
	return s
}

// payloadKeys are the members that hold a media part's bytes in the dialects' shapes: base64
// (data, bytes, base64) or a data URL (url, image_url, file_data).
var payloadKeys = map[string]bool{"data": true, "bytes": true, "base64": true, "url": true, "image_url": true, "file_data": true}

// mediaInfo describes a media part found in a message.
type mediaInfo struct {
	image    bool
	pdf      bool
	base64   string // the payload's base64 (without a data: prefix)
	hasMedia bool
}

// mediaOf reports whether an object node is a media part: it holds a payload member through
// objects only (not through an array: an object holding a list of parts is not itself a part).
// The kind comes from the MIME type or the shape's keys.
func mediaOf(n *node) mediaInfo {
	var m mediaInfo
	var mime string
	var walk func(n *node, inImage bool)
	walk = func(n *node, inImage bool) {
		for _, f := range n.obj {
			v := f.val
			switch {
			case v.isObj:
				walk(v, inImage || strings.Contains(f.key, "image"))
			case v.isArr:
			case payloadKeys[f.key]:
				s := v.str()
				if rest, ok := strings.CutPrefix(s, "data:"); ok {
					head, data, ok := strings.Cut(rest, ",")
					if !ok {
						continue
					}
					mime, m.base64, m.hasMedia = strings.TrimSuffix(head, ";base64"), data, true
				} else if s != "" && (f.key == "data" || f.key == "bytes" || f.key == "base64") {
					m.base64, m.hasMedia = s, true
				}
				if m.hasMedia && (inImage || strings.Contains(f.key, "image")) {
					m.image = true
				}
			case f.key == "mimeType" || f.key == "mime_type" || f.key == "media_type":
				mime = v.str()
			case f.key == "type":
				t := v.str()
				if t == "image" || t == "image_url" || t == "input_image" {
					inImage = true
					m.image = m.image || m.hasMedia
				}
			case f.key == "format":
				if v.str() == "pdf" {
					mime = "application/pdf"
				}
			}
		}
		if inImage && m.hasMedia {
			m.image = true
		}
	}
	walk(n, false)
	if strings.HasPrefix(mime, "image/") {
		m.image = true
	}
	m.pdf = mime == "application/pdf"
	return m
}
