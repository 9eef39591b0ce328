package historyimage

import "strings"

const (
	// idPrefix is the prefix of an image id inside a placeholder.
	idPrefix = "history_"
	// keyPrefix prefixes every cache key and object name; the rest is the hash.
	keyPrefix = "history_image_"
	// minIDLen is the design's lower bound on an image id (docs/design.md, "Errors"); maxIDLen is the length of an MD5 in hex.
	minIDLen = 8
	maxIDLen = 32
)

// Placeholder returns the text that replaces an image in an older turn:
// "[Picture:history_{md5}]".
func Placeholder(md5 string) string { return "[Picture:" + idPrefix + md5 + "]" }

// FilePlaceholder returns the text that replaces a document, audio or video in an older turn:
// "[File:history_{md5}]". tool.get_history_image fetches it back like an image.
func FilePlaceholder(md5 string) string { return "[File:" + idPrefix + md5 + "]" }

// NormalizeID turns what a model or a caller passes as an image id into the bare lower-case hex hash
// used as cache key. It accepts "0123abcd...", "history_0123abcd..." and the whole placeholder
// "[Picture:history_0123abcd...]" or "[File:history_0123abcd...]", with surrounding spaces. The id must then be 8 to 32 hex digits
// (the design rejects fewer than 8; more than 32 cannot be an MD5); anything else is ErrInvalidImageID.
// Upper-case hex is accepted and lower-cased, since hashes are stored in lower case.
func NormalizeID(s string) (string, error) {
	s = strings.TrimSpace(s)
	for _, open := range []string{"[Picture:", "[File:"} {
		if strings.HasPrefix(s, open) && strings.HasSuffix(s, "]") {
			s = s[len(open) : len(s)-1]
		}
	}
	s = strings.TrimPrefix(s, idPrefix)
	if len(s) < minIDLen || len(s) > maxIDLen {
		return "", ErrInvalidImageID
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", ErrInvalidImageID
		}
	}
	return strings.ToLower(s), nil
}

// cacheKey is the KV key and Object Store name of an image: derived from the hash, and from the
// scope namespace (scope.Scope.Namespace) of the request that caches or fetches it. A request that
// reads everything (no scope header, or "*") uses the keys of before scopes ("history_image_{md5}");
// a scoped one "history_image_{namespace}_{md5}", so an md5 cached under one scope is not found under
// another.
func cacheKey(namespace, md5 string) string {
	if namespace == "" {
		return keyPrefix + md5
	}
	return keyPrefix + namespace + "_" + md5
}
