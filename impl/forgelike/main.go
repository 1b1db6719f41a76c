// Command forgelike is a test-only emulation of Forge's own tools, as
// /work/shared/FORGE_FACTS.md (../shared/FORGE_FACTS.md from the module
// root) describes them where the SRDs leave room: the reference
// implementation served over FCP/1, with each response changed the way
// Forge's Rust code answers. It exists to prove the suite's fidelity rule
// (spec/INTERPRETATIONS.md): an implementation that behaves as Forge does
// passes every case except those where Forge deviates from the SRD text.
// It is not an implementation of anything; the test next to it runs the
// corpus against it and asserts the exact set of failing cases.
//
// Emulated (FORGE_FACTS.md, apply_patch/LP1, write_file, read_file and
// sandbox tables):
//   - LP1 error messages in Forge's words, without line numbers
//     ("Match is not unique", "Missing END footer", ...); parse errors name
//     the file "<patch>";
//   - policies.lp1_missing_file=refuse: a file not read, missing or not, is
//     StaleFile "File was not read before patching";
//   - a section with no operations is accepted; E with an occurrence and an
//     empty match block is applied (it erases nothing);
//   - E of every line then T keeps the final newline (Forge's side of the
//     spec conflict I-LP-11: an "N +" is added where the reference's
//     reading would drop it);
//   - two of the grammar deviations: text after END is ignored, blank lines
//     and comments before LP1 are skipped (the suite must fail these);
//   - write_file answers "Created <canonical absolute path> (<n> bytes)",
//     records the new file in the read cache, and words an existing path
//     "file already exists: <path>. Use apply_patch to modify existing
//     files.";
//   - read_file's truncated binary header "[binary:base64][truncated]"
//     (no space); an output limit below the header gives the header cut to
//     the limit; a UTF-8 character cut by the 8 KB sniff window makes the
//     file binary; a whole-file read with invalid UTF-8 past the window is
//     ExecutionFailed; the scan bound of a range read counts the whole file;
//   - DeniedPatternMatched.attempted is the canonical absolute path,
//     PathOutsideSandbox.attempted the working dir joined with the request;
//     a path with control or bidi characters is BadArgs "path contains
//     invalid control characters".
//
// Not emulated (see the test): a path under a missing directory is
// PathOutsideSandbox in Forge (a deviation from FR-VAL-04 step 4), so
// write_file with missing parents fails there; the other grammar
// deviations (U+00A0 as whitespace, a bare CR in a row, "01"/"+1", "T x",
// "N+", unquoted paths with spaces or quotes, text after a quoted path).
//
// Usage: forgelike (FCP/1 on stdin/stdout).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
)

func main() {
	h, err := newHandler()
	if err != nil {
		fmt.Fprintln(os.Stderr, "forgelike:", err)
		os.Exit(2)
	}
	if err := fcpserver.Serve(context.Background(), os.Stdin, os.Stdout, h); err != nil {
		fmt.Fprintln(os.Stderr, "forgelike:", err)
		os.Exit(1)
	}
}
