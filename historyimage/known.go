package historyimage

import (
	"strconv"
	"sync"
)

// Known remembers media that earlier calls checked, by the MD5 and length of their base64, so
// that a medium sent again on every turn of a session (the screenshot a tool returned twenty turns
// ago) is decoded and sniffed once rather than on every request. It is only an optimisation: what
// a medium is does not change while its bytes do not (an MD5 collision aside: two different texts
// with one MD5 already share one cache entry), and every medium is still hashed, and written to the
// cache, on every call. It holds at most its size of media, forgetting the oldest first; a medium
// that failed its check is not remembered. A Known is safe for concurrent use.
type Known struct {
	mu    sync.Mutex
	info  map[string]imageInfo
	order []string // ring of keys, oldest at next
	next  int
}

// NewKnown returns a Known of at most size media (at least 1).
func NewKnown(size int) *Known {
	size = max(size, 1)
	return &Known{info: make(map[string]imageInfo, size), order: make([]string, 0, size)}
}

func knownKey(md5 string, n int) string { return md5 + ":" + strconv.Itoa(n) }

func (k *Known) get(md5 string, n int) (imageInfo, bool) {
	if k == nil {
		return imageInfo{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	info, ok := k.info[knownKey(md5, n)]
	return info, ok
}

func (k *Known) add(md5 string, n int, info imageInfo) {
	if k == nil {
		return
	}
	key := knownKey(md5, n)
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.info[key]; ok {
		return
	}
	if len(k.order) < cap(k.order) {
		k.order = append(k.order, key)
	} else {
		delete(k.info, k.order[k.next])
		k.order[k.next] = key
		k.next = (k.next + 1) % len(k.order)
	}
	k.info[key] = info
}
