// Command forge-ref serves forge-conform's reference implementation of the
// Forge tools over FCP/1 (spec/PROTOCOL.md) on stdin and stdout: the
// implementation alone, for `forge-conform --binary forge-ref`.
//
//	forge-ref [--policy KEY=VALUE]... [--reading I-XX-NN=NAME]...
//
// It is the same reference as `forge-conform ref`, built without the
// harness: no runner, no FUSE, no terminal UI. Every package a Go program links initializes before main, so this
// one starts in a fraction of the harness's time, which matters in
// one-shot mode (a process per case): there the suite times the
// implementation, not the harness. A guard test keeps those packages out
// of its import graph.
//
// Exit status: 0 at the end of stdin (or after bye), 2 on a usage error or
// when serving fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/forge-conform/forge-conform/impl/fcpserver"
	"github.com/forge-conform/forge-conform/impl/readings"
	"github.com/forge-conform/forge-conform/impl/reference"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run serves until the end of stdin. It installs no signal handler:
// SIGINT and SIGTERM end the process as they end any Go program, which is
// all a server of FCP/1 needs (the runner ends an implementation by
// closing its stdin, then by killing its process tree; the journal is
// built to survive SIGKILL), and asking the runtime to catch signals
// starts a thread, a tenth of a minimal program's start-up time.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "forge-ref: %v\nusage: forge-ref [--policy KEY=VALUE]... [--reading I-XX-NN=NAME]...\n", err)
		return 2
	}
	ref, err := reference.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "forge-ref: %v\n", err)
		return 2
	}
	fcpserver.TuneCollector()
	if err := fcpserver.Serve(context.Background(), stdin, stdout, ref); err != nil {
		fmt.Fprintf(stderr, "forge-ref: %v\n", err)
		return 2
	}
	return 0
}

// parse reads the command line into the reference's options.
func parse(args []string, stderr io.Writer) (reference.Options, error) {
	fs := flag.NewFlagSet("forge-ref", flag.ContinueOnError)
	fs.SetOutput(stderr)
	policies := policyFlag{}
	fs.Var(policies, "policy", "declare and follow a policy, KEY=VALUE (repeatable), e.g. lp1_missing_file=refuse")
	var readingKeys readingFlag
	fs.Var(&readingKeys, "reading", "take a reading the SRD allows, INTERPRETATION=NAME (repeatable), e.g. I-EXE-12=keep-cr")
	if err := fs.Parse(args); err != nil {
		return reference.Options{}, err
	}
	if fs.NArg() > 0 {
		return reference.Options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var opts reference.Options
	if len(policies) > 0 {
		opts.Policies = policies
	}
	if err := readings.ApplyKeys(&opts, readingKeys); err != nil {
		return reference.Options{}, err
	}
	return opts, nil
}

// readingFlag collects --reading INTERPRETATION=NAME flags.
type readingFlag []string

func (r *readingFlag) String() string     { return strings.Join(*r, ",") }
func (r *readingFlag) Set(s string) error { *r = append(*r, s); return nil }

// policyFlag collects --policy KEY=VALUE flags, checked as the reference
// checks them.
type policyFlag map[string]string

func (p policyFlag) String() string {
	kvs := make([]string, 0, len(p))
	for k, v := range p {
		kvs = append(kvs, k+"="+v)
	}
	return strings.Join(kvs, ",")
}

func (p policyFlag) Set(kv string) error {
	k, v, err := reference.ParsePolicy(kv)
	if err != nil {
		return err
	}
	p[k] = v
	return nil
}
