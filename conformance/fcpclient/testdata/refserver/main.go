// Command refserver serves the reference implementation over FCP/1 on
// stdin/stdout, for the fcpclient end-to-end test.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/reference"
)

func main() {
	ref, err := reference.New(reference.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "refserver:", err)
		os.Exit(1)
	}
	if err := fcpserver.Serve(context.Background(), os.Stdin, os.Stdout, ref); err != nil {
		fmt.Fprintln(os.Stderr, "refserver:", err)
		os.Exit(1)
	}
}
