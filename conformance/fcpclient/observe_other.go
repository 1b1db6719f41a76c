//go:build !linux

package fcpclient

import (
	"fmt"
	"os/exec"
)

// observer observes nothing outside Linux: network namespaces and memory
// cgroups are Linux's.
type observer struct{}

func newObserver(*tree, bool) *observer { return &observer{} }

func (*observer) start(cmd *exec.Cmd) error { return cmd.Start() }

func (*observer) release() {}

const unobservedHere = "network namespaces and memory cgroups need Linux"

func (*observer) network() (NetCounters, error) {
	return NetCounters{}, fmt.Errorf("%w: %s", ErrUnobserved, unobservedHere)
}

func (*observer) watchMemory() (*MemoryWatch, error) {
	return nil, fmt.Errorf("%w: %s", ErrUnobserved, unobservedHere)
}
