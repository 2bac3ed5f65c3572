#!/usr/bin/env bash
# Renders docs/images/pr-comment.png: README's run command (the fixture diff
# with its cloud assembly, offline) through GitHub's Markdown engine
# (cmark-gfm) and GitHub's stylesheet (npm github-markdown-css), screenshot
# by headless Chromium. Needs: apt-get install -y cmark-gfm chromium
# fonts-noto-color-emoji, and npm. Run from the repository root; review the
# picture before committing it.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./cmd/cdkd-action --local --from-json=testdata/fixtures/diff-v2.json \
  --app=testdata/fixtures/assembly-v2 > "$work/comment.md" 2>/dev/null
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
echo "wrote docs/images/pr-comment.png"
