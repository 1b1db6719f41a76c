package evolve

import (
	"strings"
	"unicode"
)

// Op is one run of a word diff.
type Op struct {
	// Kind is ' ' (kept), '-' (only in the old text) or '+' (only in the
	// new one).
	Kind  byte
	Words []string
}

// WordDiff diffs two texts word by word (runs of white space separate
// words): a longest common subsequence, deletions before insertions.
func WordDiff(old, new string) []Op {
	a, b := strings.Fields(old), strings.Fields(new)
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []Op
	add := func(k byte, w string) {
		if n := len(ops); n > 0 && ops[n-1].Kind == k {
			ops[n-1].Words = append(ops[n-1].Words, w)
			return
		}
		ops = append(ops, Op{Kind: k, Words: []string{w}})
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			add(' ', a[i])
			i, j = i+1, j+1
		case j == len(b) || i < len(a) && lcs[i+1][j] >= lcs[i][j+1]:
			add('-', a[i])
			i++
		default:
			add('+', b[j])
			j++
		}
	}
	// Deletions before insertions in each changed stretch.
	for k := 0; k+1 < len(ops); k++ {
		if ops[k].Kind == '+' && ops[k+1].Kind == '-' {
			ops[k], ops[k+1] = ops[k+1], ops[k]
		}
	}
	return ops
}

// FormatWordDiff renders ops the way `git diff --word-diff=plain` does:
// [-removed words-]{+added words+}.
func FormatWordDiff(ops []Op) string {
	parts := make([]string, 0, len(ops))
	for _, op := range ops {
		w := strings.Join(op.Words, " ")
		switch op.Kind {
		case '-':
			w = "[-" + w + "-]"
		case '+':
			w = "{+" + w + "+}"
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// ValueChanges lists the changed stretches that replace a number with
// another ("200 → 100"): a default, a limit or a count the SRD changed,
// the change whose cases most likely need new expectations.
func ValueChanges(ops []Op) []string {
	var out []string
	for k := 0; k+1 < len(ops); k++ {
		if ops[k].Kind != '-' || ops[k+1].Kind != '+' {
			continue
		}
		was, now := strings.Join(ops[k].Words, " "), strings.Join(ops[k+1].Words, " ")
		if hasDigit(was) && hasDigit(now) {
			out = append(out, trimPunct(was)+" → "+trimPunct(now))
		}
	}
	return out
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

func trimPunct(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return r == '.' || r == ',' || r == ';' || r == ')' })
}

// ChangedText is the words of ops' changed stretches (removed and added),
// joined by spaces: what a sentence's change is about.
func ChangedText(ops []Op) string {
	var ws []string
	for _, op := range ops {
		if op.Kind != ' ' {
			ws = append(ws, op.Words...)
		}
	}
	return strings.Join(ws, " ")
}
