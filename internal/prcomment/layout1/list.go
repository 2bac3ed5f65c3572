package layout1

// writeList writes items 0..n-1 with item until the budget is exceeded or
// limit items are written (limit < 0: no cap). A list cut at its cap ends
// with "… and N more" (after prefix, e.g. "> " inside a quote); a cap of 0
// leaves the list out. It reports false when the writer went over its
// budget mid-list, so the caller stops writing this level too.
func writeList(w *Writer, n, limit int, prefix string, item func(i int)) bool {
	for i := range n {
		if w.Over() {
			return false
		}
		if i == limit {
			if limit > 0 {
				w.Write(prefix, moreItems(n-limit))
			}
			return true
		}
		item(i)
	}
	return true
}
