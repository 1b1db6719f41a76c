// Package doccheck keeps the repository's documents true on a clone. It has
// no code of its own: its tests read README.md, CI.md, spec/*.md and
// examples/**/README* and fail when
//
//   - an FCP/1 request example (a JSON object with an "op" member) does not
//     validate against the request schemas (spec/fcp/schema, through
//     spec/fcp/fcpschema), so a newcomer can paste any of them into an
//     implementation;
//   - PROTOCOL.md's envelope table (§2) does not name every op that package
//     spec/fcp defines (its Op* constants, read from the source);
//   - a document names, in backticks or as a relative link, a repository
//     file or folder that does not exist;
//   - README installs the binaries otherwise than with `go install`.
package doccheck
