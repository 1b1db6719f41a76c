package searchfiles

import "bytes"

// Literal search for the exact mode. bytes.Index stops at every
// occurrence of the needle's first byte; in source code that byte is
// often a common one ("f" of "func"), and the stops, not the comparisons,
// are what costs. indexRare stops instead at the needle's rarest byte by
// byteRank, a static estimate, and compares the whole needle there. The
// result is bytes.Index's, whichever byte is chosen: every offset where
// the needle can start is tried, leftmost first.

// rareOffset is the offset in q of its rarest byte by byteRank, the first
// of equals.
func rareOffset(q []byte) int {
	best := 0
	for i := 1; i < len(q); i++ {
		if byteRank[q[i]] < byteRank[q[best]] {
			best = i
		}
	}
	return best
}

// rareOffsetFold is rareOffset for a lower-case ASCII needle searched
// ignoring case: a letter stops the search at both its cases, so it ranks
// as the more common of the two.
func rareOffsetFold(q []byte) int {
	rank := func(c byte) uint8 {
		r := byteRank[c]
		if 'a' <= c && c <= 'z' {
			r = max(r, byteRank[c-('a'-'A')])
		}
		return r
	}
	best := 0
	for i := 1; i < len(q); i++ {
		if rank(q[i]) < rank(q[best]) {
			best = i
		}
	}
	return best
}

// indexRare is bytes.Index(s, q) for rare = rareOffset(q). When the rare
// byte stops it more often than a needle start every 16 bytes (a needle
// made of one byte, a haystack made of the rare byte), it hands the rest
// to bytes.Index, which has its own remedy.
func indexRare(s, q []byte, rare int) int {
	if rare == 0 || len(q) < 2 {
		return bytes.Index(s, q)
	}
	last := len(s) - len(q) // the last offset the needle can start at
	c := q[rare]
	fails := 0
	for start := 0; start <= last; {
		i := bytes.IndexByte(s[start+rare:last+rare+1], c)
		if i < 0 {
			return -1
		}
		p := start + i
		if bytes.Equal(s[p:p+len(q)], q) {
			return p
		}
		fails++
		if fails > 4+p/16 {
			if j := bytes.Index(s[p+1:], q); j >= 0 {
				return p + 1 + j
			}
			return -1
		}
		start = p + 1
	}
	return -1
}

// byteRank orders the byte values from rarest (0) to most common (255) in
// a mix of Go, Python and C sources and text documents, each weighted
// equally (generated once; only the search's speed depends on it).
var byteRank = [256]uint8{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 238, 246, 9, 51, 10, 11, 12, // 0x0
	13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 49, 24, 25, 26, 27, // 0x10
	255, 168, 234, 201, 157, 167, 169, 221, 231, 230, 205, 170, 237, 203, 233, 228, // 0x20
	232, 211, 202, 199, 192, 196, 193, 180, 184, 191, 213, 188, 218, 223, 219, 163, // 0x30
	162, 216, 190, 215, 200, 226, 197, 189, 181, 217, 166, 177, 208, 198, 212, 209, // 0x40
	206, 165, 210, 229, 222, 187, 178, 173, 183, 175, 164, 186, 182, 185, 158, 245, // 0x50
	176, 249, 224, 243, 242, 254, 240, 227, 236, 248, 179, 214, 244, 235, 251, 247, // 0x60
	241, 172, 250, 252, 253, 239, 207, 204, 220, 225, 174, 195, 171, 194, 161, 28, // 0x70
	150, 146, 143, 126, 113, 102, 107, 142, 140, 116, 82, 77, 119, 93, 79, 145, // 0x80
	117, 136, 99, 110, 147, 129, 148, 111, 114, 139, 100, 83, 134, 104, 89, 156, // 0x90
	125, 133, 81, 95, 132, 97, 127, 130, 106, 138, 87, 84, 85, 105, 90, 80, // 0xa0
	122, 128, 103, 124, 108, 112, 101, 115, 153, 141, 96, 121, 135, 118, 123, 92, // 0xb0
	29, 30, 137, 152, 120, 94, 58, 62, 61, 67, 64, 60, 66, 54, 151, 131, // 0xc0
	159, 149, 55, 56, 53, 57, 88, 144, 109, 98, 59, 65, 52, 41, 47, 48, // 0xd0
	154, 86, 160, 91, 72, 75, 76, 73, 74, 71, 68, 69, 70, 63, 42, 78, // 0xe0
	155, 31, 32, 43, 46, 33, 44, 34, 35, 36, 37, 38, 50, 45, 39, 40, // 0xf0
}
