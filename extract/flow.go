package extract

import "strings"

// flow builds the text of flowing content (paragraphs and tables) from XML events. A table row
// becomes one line with its cells joined by " | "; a paragraph inside a cell is separated from
// the next by a space; a table inside a cell is flattened into that cell.
type flow struct {
	out    strings.Builder
	tables []*tableFrame
}

type tableFrame struct {
	cell  strings.Builder
	row   []string
	lines []string
}

func (f *flow) w() *strings.Builder {
	if n := len(f.tables); n > 0 {
		return &f.tables[n-1].cell
	}
	return &f.out
}

func (f *flow) text(s string) { f.w().WriteString(s) }

// paraEnd ends a paragraph: a line break in running text, a space inside a table cell.
func (f *flow) paraEnd() {
	w := f.w()
	if len(f.tables) == 0 {
		w.WriteByte('\n')
		return
	}
	if s := w.String(); s != "" && !strings.HasSuffix(s, " ") {
		w.WriteByte(' ')
	}
}

func (f *flow) tableStart() { f.tables = append(f.tables, &tableFrame{}) }

func (f *flow) cellEnd() {
	if n := len(f.tables); n > 0 {
		t := f.tables[n-1]
		t.row = append(t.row, strings.Join(strings.Fields(t.cell.String()), " "))
		t.cell.Reset()
	}
}

func (f *flow) rowEnd() {
	if n := len(f.tables); n > 0 {
		t := f.tables[n-1]
		if strings.Join(t.row, "") != "" {
			t.lines = append(t.lines, strings.Join(t.row, " | "))
		}
		t.row = nil
	}
}

func (f *flow) tableEnd() {
	n := len(f.tables)
	if n == 0 {
		return
	}
	t := f.tables[n-1]
	f.tables = f.tables[:n-1]
	if len(t.lines) == 0 {
		return
	}
	w := f.w()
	if len(f.tables) > 0 {
		w.WriteString(strings.Join(t.lines, " / ") + " ")
		return
	}
	if s := w.String(); s != "" && !strings.HasSuffix(s, "\n") {
		w.WriteByte('\n')
	}
	w.WriteString(strings.Join(t.lines, "\n") + "\n")
}

// String is the text built so far, with open tables closed.
func (f *flow) String() string {
	for len(f.tables) > 0 {
		f.cellEnd()
		f.rowEnd()
		f.tableEnd()
	}
	return tidyLines(f.out.String())
}
