package trust

import (
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// DiffLine is one line of a line diff: Op ' ' (in both), '-' (only in the
// old text) or '+' (only in the new). The contract's type: the API
// carries it as it is.
type DiffLine = hostapi.DiffLine

// maxDiffCells bounds the diff's table (old lines x new lines); over it
// the diff is the old text removed and the new added.
const maxDiffCells = 4 << 20

// Diff is a line diff of old and new (a longest common subsequence of
// lines). An empty text has no lines.
func Diff(old, new string) []DiffLine {
	a, b := lines(old), lines(new)
	// Common prefix and suffix first: most changes are small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []DiffLine
	for _, l := range a[:pre] {
		out = append(out, DiffLine{Op: " ", Text: l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			out = append(out, DiffLine{Op: "-", Text: l})
		}
		for _, l := range mb {
			out = append(out, DiffLine{Op: "+", Text: l})
		}
	} else {
		out = append(out, lcs(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		out = append(out, DiffLine{Op: " ", Text: l})
	}
	return out
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func lcs(a, b []string) []DiffLine {
	n, m := len(a), len(b)
	// t[i][j] is the LCS length of a[i:] and b[j:].
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{Op: " ", Text: a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, DiffLine{Op: "-", Text: a[i]})
			i++
		default:
			out = append(out, DiffLine{Op: "+", Text: b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, DiffLine{Op: "-", Text: a[i]})
	}
	for ; j < m; j++ {
		out = append(out, DiffLine{Op: "+", Text: b[j]})
	}
	return out
}
