package anchor

// Relocate finds the sentences a BySentence anchor named when they moved
// unchanged: a run of as many sentences with the given fingerprint, first
// in the anchor's own section (nearest its old ordinal), then in the other
// sections in order. It returns the anchor pointing there, or false when
// no run matches (the text changed, or the anchor is not BySentence).
func (d *Doc) Relocate(a Anchor, fingerprint string) (Anchor, bool) {
	if a.By != BySentence {
		return a, false
	}
	n := max(a.Through, a.Sentence) - a.Sentence
	try := func(s *Section) (int, bool) {
		best, found := 0, false
		for first := 0; first+n < len(s.Sentences); first++ {
			if Fingerprint(s.texts(first, first+n)...) != fingerprint {
				continue
			}
			if !found || abs(first-a.Sentence) < abs(best-a.Sentence) {
				best, found = first, true
			}
		}
		return best, found
	}
	moved := func(s *Section, first int) Anchor {
		b := a
		b.Section, b.Sentence, b.Fingerprint = s.Key, first, fingerprint
		if a.Through != 0 {
			b.Through = first + n
		}
		return b
	}
	if s, ok := d.Section(a.Section); ok {
		if first, ok := try(s); ok {
			return moved(s, first), true
		}
	}
	for i := range d.Sections {
		s := &d.Sections[i]
		if s.Key == a.Section {
			continue
		}
		if first, ok := try(s); ok {
			return moved(s, first), true
		}
	}
	return a, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
