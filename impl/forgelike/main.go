// Command forgelike is a test-only emulation of Forge's own tools and tool
// loop, as observed in Forge's own code (this package doc is the project's
// account of those observations). It is built in two layers:
//
//   - Forge's readings: where the SRDs leave room, Forge's choices are
//     named readings of the reference (impl/readings, the ones marked
//     Forge; `forge-conform readings --forge` lists them), and the
//     emulation takes all of them. Those readings are checked by
//     construction: impl/readings' test runs the corpus under each of them
//     and under all of Forge's together, and every case must pass.
//   - Forge's deviations: where Forge's code contradicts the SRD text, this
//     package adds it on top (handler.go forgeDeviations, tools.go
//     forgeTool, lp1.go): its LP1 parser's leniencies, its sandbox's
//     missing-parent resolution, read_file requiring approval, summaries
//     that redact "sk-" keys only, LP1 parse errors pre-resolved as BadArgs
//     in a turn, no JSON error passthrough, error results never truncated.
//
// The test next to it runs the corpus against it through FCP/1 and asserts
// the exact set of failing cases and the IDs they name: the deviations, and
// nothing else. It is not an implementation of anything.
//
// The observations, by area (those the readings now carry are taken from
// readings.Forge(); the rest are this package's own code):
//
// apply_patch and LP1: Forge's parser (forgeLP1), with all its grammar
// deviations: text after END ignored, blank lines and comments before LP1
// skipped, Unicode White_Space (U+00A0, U+2028, form feed) trimmed as
// whitespace, a bare CR kept inside a row or a comment and dropped after
// END, "01"/"+1" occurrences, a command read from its first character ("R1",
// "T 1", "B x", "T # c"), "N+", bare paths cut at the first whitespace
// (their quotes kept, trailing text ignored, "Fa.txt" read as F a.txt), text
// after a quoted path ignored. That is 29 lp1 cases, the number the fidelity
// rule names; the observations group them (U+00A0 stands for every
// White_Space character, "T x" for T and B with anything after them). Its
// messages are Forge's ("Match is not unique", "Missing END footer", ...,
// no line numbers); parse errors name the file "<patch>"; a section
// without operations is accepted; E with an occurrence and an empty match
// block erases nothing; final_newline is kept until the section's last
// operation (E of every line then T keeps it); file bytes decode as
// Forge's parse_file. policies.lp1_missing_file=refuse: a file not read,
// missing or not, is StaleFile "File was not read before patching".
//
// write_file: "Created <canonical absolute path> (<n> bytes)", the new
// file's SHA-256 in the read cache, "file already exists: <path>. Use
// apply_patch to modify existing files.".
//
// read_file: the truncated binary header "[binary:base64][truncated]" (no
// space); an output limit below the header gives the header cut to the
// limit; a UTF-8 character cut by the 8 KB sniff window makes the file
// binary; a whole-file read with invalid UTF-8 past the window is
// ExecutionFailed; the scan bound of a range read counts the whole file.
//
// Sandbox: DeniedPatternMatched.attempted is the canonical absolute path,
// PathOutsideSandbox.attempted the working dir joined with the request; a
// path with control or bidi characters is BadArgs "path contains invalid
// control characters"; a path under a missing directory is
// PathOutsideSandbox (only the parent is canonicalized; read_file,
// write_file, apply_patch, list_directory, search_files), so write_file
// with missing parents fails.
//
// Executor (the turn ops): Forge's planner order (apply_patch's size
// before the tool lookup and schema; the approval summary only for calls
// that need confirmation, sanitized before its 200-character cut); Forge's
// limit texts ("Exceeded max tool calls per batch", "Tool arguments too
// large", "Patch exceeds max_patch_bytes"); Forge's result texts (forgeErrorText:
// "Bad args: …", "Tool '<t>' timed out after <n>s" in whole seconds,
// "<tool> failed: <message>" with NO JSON passthrough, "Unknown tool: <n>",
// "Duplicate tool call id: <id>", "Patch failed for <file>: …", "Stale file
// <file>: …", a denial's own text); error results sanitized but never
// truncated; sanitization keeping \n, \t and \r; timeouts: read_file and
// apply_patch the file-operations timeout, run_command the shell timeout,
// every other tool (write_file and search_files included) the default;
// run_command as Forge's (runCommand: stdout and stderr each collected up
// to min(max_output_bytes, capacity), so a longer output is cut without a
// marker, stderr appended only when not blank, "exit code <n>"); the env
// denylist is the reference's (glob, case-sensitive on Unix).
//
// Not emulated: write_file returning before its bytes are flushed (a race
// Forge loses in most runs: the cached SHA-256 is then the empty file's;
// not reproducible on purpose); the journal (recover is not declared: nothing observed of
// Forge's code covers durability, so the turn-durable cases skip); the screen
// is the reference TUI's (Forge's one observed UI fact, the last 50 output lines,
// is the reference's too). Where Forge's own code panics (an LP1 match
// block longer than the file: a Rust slice index out of range) the
// emulation answers "Match not found"; where run_command's pipes stay open
// after the shell exits (a background child), it stops reading after a
// grace period as the reference does, where Forge would wait.
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
