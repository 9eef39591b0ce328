#!/usr/bin/env bash
# Regenerates the extraction fixtures in this folder from the sources written below. Not run by
# `make test` (the committed files are what the tests read); run it by hand after changing a source:
#
#   apt-get install -y --no-install-recommends libreoffice-writer-nogui libreoffice-calc-nogui \
#       libreoffice-impress-nogui fonts-noto-cjk ghostscript poppler-utils python3-reportlab pandoc
#   ./make-fixtures.sh
#
# report.epub is the same document through LibreOffice's EPUB export.
# Producers differ on purpose (the PDF extractor was chosen by its results on all of them):
# LibreOffice (report.pdf: CJK with embedded subset fonts, a table, two pages), ReportLab
# (columns.pdf: two columns; cid.pdf: Chinese in a non-embedded CID font; table.pdf; long.pdf:
# 50 pages; locked.pdf: encrypted; scanned.pdf: an image only), Ghostscript (gs.pdf), and pandoc
# for a second producer of DOCX and PPTX (notes.docx, notes.pptx).
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work" # LibreOffice writes its profile there

cat >"$work/report.fodt" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
  xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
  office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:font-face-decls>
  <style:font-face style:name="Noto Sans CJK SC" svg:font-family="'Noto Sans CJK SC'" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/>
 </office:font-face-decls>
 <office:styles>
  <style:default-style style:family="paragraph">
   <style:text-properties style:font-name="Noto Sans CJK SC" style:font-name-asian="Noto Sans CJK SC" fo:font-size="11pt" style:font-size-asian="11pt"/>
  </style:default-style>
 </office:styles>
 <office:automatic-styles>
  <style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style>
 </office:automatic-styles>
 <office:body>
  <office:text>
   <text:h text:outline-level="1">Quarterly Report 季度报告</text:h>
   <text:p>Revenue grew by 12 percent in the third quarter.</text:p>
   <text:p>第三季度收入增长了百分之十二。</text:p>
   <table:table table:name="Summary">
    <table:table-column table:number-columns-repeated="3"/>
    <table:table-row>
     <table:table-cell><text:p>Region</text:p></table:table-cell>
     <table:table-cell><text:p>Revenue</text:p></table:table-cell>
     <table:table-cell><text:p>地区备注</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell><text:p>North</text:p></table:table-cell>
     <table:table-cell><text:p>1200</text:p></table:table-cell>
     <table:table-cell><text:p>北方</text:p></table:table-cell>
    </table:table-row>
   </table:table>
   <text:p text:style-name="Break">Page two: outlook and risks.</text:p>
   <text:p>第二页：展望与风险。</text:p>
  </office:text>
 </office:body>
</office:document>
XML

cat >"$work/sheet.fods" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
  office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
 <office:body>
  <office:spreadsheet>
   <table:table table:name="Sales">
    <table:table-row>
     <table:table-cell office:value-type="string"><text:p>Region</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Units</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>Note</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell office:value-type="string"><text:p>North</text:p></table:table-cell>
     <table:table-cell office:value-type="float" office:value="1200"><text:p>1200</text:p></table:table-cell>
     <table:table-cell office:value-type="string"><text:p>late, but complete</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell office:value-type="string"><text:p>South</text:p></table:table-cell>
     <table:table-cell office:value-type="float" office:value="2.5"><text:p>2.5</text:p></table:table-cell>
     <table:table-cell/>
    </table:table-row>
   </table:table>
   <table:table table:name="备注">
    <table:table-row>
     <table:table-cell office:value-type="string"><text:p>项目</text:p></table:table-cell>
     <table:table-cell/>
     <table:table-cell office:value-type="string"><text:p>状态</text:p></table:table-cell>
    </table:table-row>
    <table:table-row>
     <table:table-cell office:value-type="string"><text:p>迁移</text:p></table:table-cell>
     <table:table-cell/>
     <table:table-cell office:value-type="string"><text:p>完成</text:p></table:table-cell>
    </table:table-row>
   </table:table>
  </office:spreadsheet>
 </office:body>
</office:document>
XML

cat >"$work/slides.fodp" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
  xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
  xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
  office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:body>
  <office:presentation>
   <draw:page draw:name="page1">
    <draw:frame svg:x="1cm" svg:y="1cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Roadmap 2027</text:p></draw:text-box></draw:frame>
    <draw:frame svg:x="1cm" svg:y="5cm" svg:width="20cm" svg:height="8cm"><draw:text-box><text:p>Ship the worker</text:p><text:p>发布工作器</text:p></draw:text-box></draw:frame>
   </draw:page>
   <draw:page draw:name="page2">
    <draw:frame svg:x="1cm" svg:y="1cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>Risks 风险</text:p></draw:text-box></draw:frame>
   </draw:page>
  </office:presentation>
 </office:body>
</office:document>
XML

lo() { soffice --headless --norestore --convert-to "$1" --outdir "$work/out" "$2" >/dev/null; }
lo pdf "$work/report.fodt"
lo docx "$work/report.fodt"
lo odt "$work/report.fodt"
lo epub "$work/report.fodt"
lo xlsx "$work/sheet.fods"
lo ods "$work/sheet.fods"
lo pptx "$work/slides.fodp"
lo odp "$work/slides.fodp"
cp "$work/out/"* .

/usr/bin/python3 - <<'PY'
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib import colors
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.platypus import (BaseDocTemplate, Frame, PageTemplate, Paragraph, SimpleDocTemplate,
                                Table, TableStyle, PageBreak)

styles = getSampleStyleSheet()
body = styles["BodyText"]

# columns.pdf: two columns, the left one read first.
doc = BaseDocTemplate("columns.pdf", pagesize=A4, invariant=1)
w, h = A4
left = Frame(40, 60, (w - 100) / 2, h - 120, id="left")
right = Frame(60 + (w - 100) / 2, 60, (w - 100) / 2, h - 120, id="right")
doc.addPageTemplates([PageTemplate(id="two", frames=[left, right])])
from reportlab.platypus import FrameBreak
doc.build([
    Paragraph("Left column: the first paragraph explains the plan in plain words.", body),
    Paragraph("Left column: the second paragraph lists the steps.", body),
    FrameBreak(),
    Paragraph("Right column: the third paragraph closes the argument.", body),
])

# cid.pdf: Chinese in a standard CID font that is not embedded (no ToUnicode map).
pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
c = canvas.Canvas("cid.pdf", pagesize=A4, invariant=1)
c.setFont("STSong-Light", 14)
c.drawString(72, 760, "中文段落：季度收入增长。")
c.setFont("Helvetica", 12)
c.drawString(72, 730, "English line after the Chinese one.")
c.save()

# table.pdf: a grid table.
doc = SimpleDocTemplate("table.pdf", pagesize=A4, invariant=1)
t = Table([["Item", "Qty", "Price"], ["Apples", "3", "1.20"], ["Pears", "10", "0.85"]])
t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
doc.build([t])

# long.pdf: 50 pages of text, for the benchmark.
doc = SimpleDocTemplate("long.pdf", pagesize=A4, invariant=1)
story = []
for page in range(1, 51):
    for para in range(1, 9):
        story.append(Paragraph(
            f"Page {page}, paragraph {para}. The worker reads documents for models that take text only; "
            f"this sentence repeats so that every page carries a realistic amount of text to extract.", body))
    story.append(PageBreak())
doc.build(story[:-1])

# locked.pdf: needs a user password.
c = canvas.Canvas("locked.pdf", pagesize=A4, invariant=1,
                  encrypt=StandardEncryption("user-secret", "owner-secret", strength=128))
c.drawString(72, 760, "Secret text.")
c.save()
PY

# scanned.pdf: a page rendered to an image and wrapped in a PDF with no text layer.
pdftoppm -r 60 -png -f 1 -l 1 report.pdf "$work/scan"
/usr/bin/python3 - "$work"/scan*.png <<'PY'
import sys
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas
c = canvas.Canvas("scanned.pdf", pagesize=A4, invariant=1)
c.drawImage(sys.argv[1], 0, 0, width=A4[0], height=A4[1])
c.save()
PY

# notes.docx, notes.pptx: pandoc, a second producer of Office files.
cat >"$work/notes.md" <<'MD'
# Meeting notes 会议记录

Decisions were made on *three* topics, see [the plan](https://example.com/plan).

决定：下周发布。

| Owner | Task |
|-------|------|
| Ana   | Ship |
| 李雷  | 测试 |

- first item
- 第二项
MD
pandoc "$work/notes.md" -o notes.docx
pandoc "$work/notes.md" -o notes.pptx

# gs.pdf: PostScript through Ghostscript.
cat >"$work/gs.ps" <<'PS'
%!PS
/Helvetica findfont 14 scalefont setfont
72 720 moveto (Ghostscript line one.) show
72 700 moveto (Ghostscript line two, with a comma.) show
showpage
PS
ps2pdf "$work/gs.ps" gs.pdf
ls -l
