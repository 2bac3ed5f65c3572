#!/usr/bin/env bash
# Renders docs/images/pr-comment.png, README's picture: README's run command
# (the line under <!-- run-command -->: the fixture diff with its cloud
# assembly, offline) through GitHub's Markdown engine (cmark-gfm) and
# GitHub's stylesheet (npm github-markdown-css), screenshot by headless
# Chromium, and records the sha256 of the output it rendered in
# docs/images/pr-comment.png.sha256, which the docs check
# (go run ./scripts/checkdocs) compares with what the run command prints
# today.
#
# Needs Go, npm (it fetches github-markdown-css@5 from the npm registry),
# and on Debian or Ubuntu:
#   apt-get update && apt-get install -y cmark-gfm chromium fonts-noto-color-emoji
# ImageMagick's convert, when present, trims the white below the comment.
# Run from the repository root; review the picture before committing it.
set -euo pipefail
for tool in go npm cmark-gfm chromium; do
  command -v "$tool" >/dev/null || { echo "render.sh: $tool is not installed (see the comment at the top)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=$(awk '/<!-- run-command -->/{m=1; next} m && /^```/{f=1; next} f && NF{print; exit}' README.md)
[ -n "$run" ] || { echo "render.sh: README.md has no run command under <!-- run-command -->" >&2; exit 1; }
sh -c "$run" > "$work/comment.md" 2>/dev/null
(cd "$work" && npm pack --silent github-markdown-css@5 >/dev/null && tar xzf github-markdown-css-*.tgz)
{
  printf '<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="package/github-markdown-light.css">'
  printf '<style>body{margin:0;background:#fff}.markdown-body{box-sizing:border-box;width:820px;padding:24px;border:1px solid #d0d7de;border-radius:6px;margin:8px}</style>'
  printf '<article class="markdown-body">'
  cmark-gfm --unsafe -e table -e autolink -e tagfilter -e strikethrough "$work/comment.md"
  printf '</article>'
} > "$work/comment.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --window-size=840,990 \
  --screenshot="$work/shot.png" "file://$work/comment.html" >/dev/null 2>&1
mkdir -p docs/images
# Trim the white below the comment.
if command -v convert >/dev/null && convert -version 2>/dev/null | grep -q ImageMagick; then
  convert "$work/shot.png" -trim +repage -bordercolor white -border 8 docs/images/pr-comment.png
else
  cp "$work/shot.png" docs/images/pr-comment.png
fi
sha256sum "$work/comment.md" | cut -d' ' -f1 > docs/images/pr-comment.png.sha256
echo "wrote docs/images/pr-comment.png and docs/images/pr-comment.png.sha256"
