#!/usr/bin/env bash
# Renders a Word export so a person can look at it: the .docx to PDF with LibreOffice, and the first
# pages of the PDF to PNG images. For checking layout by eye (right-to-left, headings, page breaks,
# font sizes); `npm test` never runs it, since CI has no LibreOffice.
#
# Usage: scripts/docx-to-pdf.sh FILE.docx [OUT_DIR] [PAGES]
#   OUT_DIR  where FILE.pdf and FILE-<n>.png go (default: the .docx's directory)
#   PAGES    how many pages to render as PNG (default 4), at 60 dpi
#
# Needs soffice and pdftoppm, plus fonts, e.g. on Debian/Ubuntu:
#   apt-get install -y libreoffice-writer-nogui poppler-utils fonts-hosny-amiri fonts-crosextra-carlito fonts-liberation2
# Word's fonts are not on Linux, so the rendering maps them to look-alikes (below): Traditional Arabic
# to Amiri (both classical naskh), Calibri to Carlito and Arial to Liberation Sans (same metrics).
# Without that, LibreOffice falls back to whatever font has the glyphs (DejaVu Sans for Arabic).
set -euo pipefail

if [[ $# -lt 1 || ! -f $1 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
docx=$1
out=${2:-$(dirname "$docx")}
pages=${3:-4}
name=$(basename "$docx" .docx)
mkdir -p "$out"

# A profile of its own, so a running LibreOffice (or a locked default profile) does not get in the way.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
alias() { echo "<alias binding=\"same\"><family>$1</family><prefer><family>$2</family></prefer></alias>"; }
cat > "$profile/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  $(alias 'Traditional Arabic' Amiri)
  $(alias Calibri Carlito)
  $(alias Arial 'Liberation Sans')
</fontconfig>
CONF
FONTCONFIG_FILE="$profile/fonts.conf" soffice -env:UserInstallation="file://$profile" --headless --convert-to pdf --outdir "$out" "$docx" >/dev/null 2>&1
pdftoppm -png -r 60 -f 1 -l "$pages" "$out/$name.pdf" "$out/$name"
ls "$out/$name".pdf "$out/$name"-*.png
