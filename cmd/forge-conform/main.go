// Command forge-conform checks an implementation of the Forge tool specs
// against the conformance corpus and reports a verdict per requirement ID.
//
//	forge-conform [flags]                  run the suite (built-in reference, or --binary)
//	forge-conform list                     list cases with their IDs
//	forge-conform trace                    ID -> cases -> status
//	forge-conform golden update [--dir D]  regenerate golden files from the reference
//	forge-conform ref [--mutant NAME]      serve the reference implementation over FCP/1
//	forge-conform spec check --srd FILE    diff a catalog against an SRD's IDs
//
// Exit status: 0 when every case passes, 1 on failures, 2 on usage or
// harness errors.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
