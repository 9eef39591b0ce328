package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// typeDoc is what the Go source says about one type: its doc comment and, for a struct, each
// field's.
type typeDoc struct {
	comment
	fields map[string]comment // by Go field name
}

// comment is a doc comment split into its description (the text without directives and without
// "Go:" paragraphs) and its directives (//schema:KEY VALUE, //ts:KEY VALUE).
type comment struct {
	text string
	dirs []directive
}

// directive is one //TOOL:KEY VALUE annotation. Lines with the same tool and key are one directive,
// their values joined by newlines (a long JSON value may span lines).
type directive struct {
	tool, key, value string
}

// get returns the value of the directive tool:key and whether the comment has it.
func (c comment) get(tool, key string) (string, bool) {
	for _, d := range c.dirs {
		if d.tool == tool && d.key == key {
			return d.value, true
		}
	}
	return "", false
}

// loadDocs parses the non-test Go files of dir and returns the doc comments of its types.
func loadDocs(dir string) (map[string]*typeDoc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	out := map[string]*typeDoc{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				td := &typeDoc{fields: map[string]comment{}}
				if td.comment, err = parseComment(doc); err != nil {
					return nil, fmt.Errorf("type %s: %w", ts.Name.Name, err)
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fld := range st.Fields.List {
						c, err := parseComment(fld.Doc)
						if err != nil {
							return nil, fmt.Errorf("type %s: %w", ts.Name.Name, err)
						}
						for _, n := range fld.Names {
							td.fields[n.Name] = c
						}
						if len(fld.Names) == 0 { // embedded: named by its type
							if id, ok := fld.Type.(*ast.Ident); ok {
								td.fields[id.Name] = c
							}
						}
					}
				}
				out[ts.Name.Name] = td
			}
		}
	}
	return out, nil
}

// tools are the directive prefixes the generator reads.
var tools = []string{"schema", "ts"}

func parseComment(cg *ast.CommentGroup) (comment, error) {
	if cg == nil {
		return comment{}, nil
	}
	c := comment{text: description(cg.Text())}
	for _, line := range cg.List {
		text, ok := strings.CutPrefix(line.Text, "//")
		if !ok {
			continue
		}
		tool, rest, ok := strings.Cut(text, ":")
		if !ok || !slices.Contains(tools, tool) || strings.HasPrefix(rest, " ") {
			continue
		}
		key, value, _ := strings.Cut(rest, " ")
		if key == "" {
			return comment{}, fmt.Errorf("directive %q has no key", line.Text)
		}
		if i := slices.IndexFunc(c.dirs, func(d directive) bool { return d.tool == tool && d.key == key }); i >= 0 {
			c.dirs[i].value += "\n" + value
			continue
		}
		c.dirs = append(c.dirs, directive{tool: tool, key: key, value: value})
	}
	return c, nil
}

// description turns doc comment text (directives already removed by ast.CommentGroup.Text) into a
// schema description: each paragraph on one line, paragraphs that start with "Go:" left out (they
// are for Go readers), paragraphs separated by a blank line.
func description(text string) string {
	var paras []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(strings.TrimSpace(p), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSpace(l)
		}
		p = strings.Join(lines, " ")
		if p == "" || strings.HasPrefix(p, "Go:") {
			continue
		}
		paras = append(paras, p)
	}
	return strings.Join(paras, "\n\n")
}
