package rawjson_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

func TestValueEnd(t *testing.T) {
	tests := []struct{ in, value string }{
		{`"a\"b\\" , 1`, `"a\"b\\"`},
		{`{"a":[1,"]}",{"b":"}"}]} x`, `{"a":[1,"]}",{"b":"}"}]}`},
		{`[] ]`, `[]`},
		{`-1.5e3,2`, `-1.5e3`},
		{`true}`, `true`},
		{`null ]`, `null`},
	}
	for _, tt := range tests {
		if got := tt.in[:rawjson.ValueEnd([]byte(tt.in), 0)]; got != tt.value {
			t.Errorf("ValueEnd(%q) gives %q, want %q", tt.in, got, tt.value)
		}
	}
}

func TestUnquote(t *testing.T) {
	for raw, want := range map[string]string{`"plain"`: "plain", `"a\/b\u00e9\n"`: "a/bé\n", `""`: ""} {
		if got := rawjson.Unquote([]byte(raw)); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestMembersAndElems(t *testing.T) {
	b := []byte(` {"a" : [1, "x,]" ,{"b":2}] , "c\u0064":null,"e":"\/"} tail`)
	var got []string
	end, err := rawjson.Members(b, 1, func(key []byte, start, end int) error {
		got = append(got, string(key)+"="+string(b[start:end]))
		return nil
	})
	want := []string{`"a"=[1, "x,]" ,{"b":2}]`, `"c\u0064"=null`, `"e"="\/"`}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") || string(b[end:]) != " tail" {
		t.Fatalf("Members: %q, end at %q, %v; want %q", got, b[end:], err, want)
	}
	obj := rawjson.Object(b)
	if len(obj) != 3 || obj[1].Name != "cd" || string(obj[1].Key) != `"c\u0064"` || string(b[obj[0].At:obj[0].At+len(obj[0].Value)]) != string(obj[0].Value) {
		t.Fatalf("Object: %+v", obj)
	}
	if !rawjson.KeyIs(obj[1].Key, "cd") || rawjson.KeyIs(obj[0].Key, "b") {
		t.Error("KeyIs")
	}
	if s, ok := rawjson.String(obj[2].Value); !ok || s != "/" {
		t.Errorf("String = %q, %v", s, ok)
	}
	if s, ok := rawjson.StringBytes([]byte(`"plain"`)); !ok || string(s) != "plain" {
		t.Errorf("StringBytes = %q, %v", s, ok)
	}
	if _, ok := rawjson.String(obj[1].Value); ok {
		t.Error("null read as a string")
	}
	var elems []string
	arr := obj[0].Value
	end, err = rawjson.Elems(arr, 0, func(n, start, end int) error {
		elems = append(elems, string(arr[start:end]))
		if n == 1 {
			return errStopTest
		}
		return nil
	})
	if err != errStopTest || len(elems) != 2 || elems[1] != `"x,]"` || string(arr[:end]) != `[1, "x,]"` {
		t.Errorf("Elems stopped at the second: %q, end %d, %v", elems, end, err)
	}
	if rawjson.Object([]byte(`[1]`)) != nil || rawjson.TypeName([]byte(`[1]`)) != "an array" {
		t.Error("an array is not an object")
	}
}

var errStopTest = errors.New("stop")
