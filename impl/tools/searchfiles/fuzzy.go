package searchfiles

// fuzzyMatcher is fuzzy mode (FR-SF-SRC-03) as defined by I-SF-08: the
// best approximate occurrence of the query in each line, scored
// (m - d) / m where m is the number of characters of the query and d the
// smallest Levenshtein distance between the query and any substring of the
// line; a line matches when the score reaches the threshold.
type fuzzyMatcher struct {
	query     []rune // case-folded (foldRune) when fold is set
	fold      bool
	threshold float64
}

func (fuzzyMatcher) next(buf []byte, from int) int { return allLines(buf, from) }

func (fuzzyMatcher) fuzzy() bool { return true }

// find appends the line's one fuzzy match, if its score reaches the
// threshold.
func (m fuzzyMatcher) find(line []byte, n int, dst []span, sc *scratch) []span {
	if n < 1 {
		return dst
	}
	sc.runes, sc.offs = sc.runes[:0], sc.offs[:0]
	for i, r := range string(line) { // valid UTF-8: binary files are skipped
		if m.fold {
			r = foldRune(r)
		}
		sc.runes = append(sc.runes, r)
		sc.offs = append(sc.offs, i)
	}
	sc.offs = append(sc.offs, len(line))
	d, start, end := bestSubstring(m.query, sc.runes, sc)
	score := fuzzyScore(len(m.query), d)
	if score < m.threshold {
		return dst
	}
	return append(dst, span{start: sc.offs[start], end: sc.offs[end], score: score})
}

// fuzzyScore is (m - d) / m in IEEE-754 double precision: one correctly
// rounded division of two exactly represented integers.
func fuzzyScore(m, d int) float64 { return float64(m-d) / float64(m) }

// bestSubstring returns d, the smallest edit distance (insertions,
// deletions and substitutions of one character, each costing 1) between q
// and a substring t[s:e] of t, and the substring chosen: the smallest end e
// among those reaching d, and for that e the largest start s (the shortest
// such substring). It is the dynamic program of Sellers (1980) with a free
// start, in O(len(q)*len(t)) time and O(len(t)) space; beside each
// distance it carries the largest start that reaches it, taken over the
// tied predecessors.
func bestSubstring(q, t []rune, sc *scratch) (d, s, e int) {
	n := len(t)
	need := 4 * (n + 1)
	if cap(sc.rows) < need {
		sc.rows = make([]int32, need)
	}
	rows := sc.rows[:need]
	prevD, prevS := rows[0:n+1], rows[n+1:2*(n+1)]
	curD, curS := rows[2*(n+1):3*(n+1)], rows[3*(n+1):]
	for j := 0; j <= n; j++ {
		prevD[j], prevS[j] = 0, int32(j) // the empty query matches anywhere
	}
	for i := 1; i <= len(q); i++ {
		qc := q[i-1]
		curD[0], curS[0] = int32(i), 0
		for j := 1; j <= n; j++ {
			bd, bs := prevD[j-1], prevS[j-1] // substitution or match
			if t[j-1] != qc {
				bd++
			}
			if v := prevD[j] + 1; v < bd || v == bd && prevS[j] > bs { // query character left out
				bd, bs = v, prevS[j]
			}
			if v := curD[j-1] + 1; v < bd || v == bd && curS[j-1] > bs { // line character left out
				bd, bs = v, curS[j-1]
			}
			curD[j], curS[j] = bd, bs
		}
		prevD, curD = curD, prevD
		prevS, curS = curS, prevS
	}
	e = 0
	for j := 1; j <= n; j++ {
		if prevD[j] < prevD[e] {
			e = j
		}
	}
	return int(prevD[e]), int(prevS[e]), e
}
