//go:build !linux

package fcpclient

import "os/exec"

// A tree confines an implementation's processes. Without Linux's cgroups
// and subreapers, only the process group is killed: a process that leaves
// it with setsid escapes.
type tree struct{}

func newTree(bool) *tree { return &tree{} }

func (*tree) mode() string { return "process group" }

func (*tree) apply(*exec.Cmd) {}

func (*tree) kill(leader int) { killGroup(leader) }

func (*tree) release() {}

// Sweep has no cgroups or marked processes to sweep here.
func Sweep() []string { return nil }
