// Package anchor ties catalog requirements to the sentences of their SRD.
//
// It splits an SRD (markdown) into sections and sentences, resolves an
// Anchor to the text it names, fingerprints that text, and proposes anchors
// for the IDs a document prints. It never stores SRD text: an Anchor holds
// only a section number, a sentence ordinal and a fingerprint.
//
// # Sections
//
// Every ATX heading (#..######) opens a section. Its key is the number the
// heading starts with ("3.6.7a" for "3.6.7a Error ...", "2" for "2. ..." or
// "2) ..."), or "h" and the heading's ordinal in the document (h1 is the
// first heading) when it has none or when the number was used already.
// Text before the first heading is section h0.
//
// # Sentences
//
// Sentence 0 of a section is its heading (without the #s). The body follows
// in order, numbered from 1, one unit per:
//   - sentence of a paragraph or list item (a list item starts a new unit;
//     a line opening with a bold ID such as **FR-X-01:** starts a new
//     paragraph even without a blank line before it);
//   - table row (the separator row |---| is skipped);
//   - non-blank line of a fenced code block (the fences are skipped).
//
// Horizontal rules and blank lines produce nothing. A paragraph or item
// splits after '.', '!' or '?' (plus any closing ) " ' * ] ” ’) followed by
// white space and a character that is not a lower-case letter, unless the
// terminator is inside a `code span` or ends one of the abbreviations e.g,
// i.e, etc, vs, cf; it always splits after '。', '！' and '？'.
//
// # Fingerprints
//
// A unit's text is its source with white space folded (runs of spaces, tabs
// and line breaks become one space; leading and trailing space dropped), the
// list marker and the heading's #s removed; markdown emphasis, backticks and
// table pipes are kept as written. A fingerprint is "sha256:" and the first
// 16 hex digits of the SHA-256 of the anchored units' texts joined with "\n".
package anchor
