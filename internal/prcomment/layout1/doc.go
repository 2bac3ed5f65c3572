// Package layout1 is the diff comment's report layout v1, frozen: a copy
// of what internal/reporters needed to render the diff report in that
// layout, kept so that a review written in it still renders to the byte
// (docs/versions.md). Never change it; a layout change is a new version.
package layout1
