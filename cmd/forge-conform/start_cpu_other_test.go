//go:build !unix

package main

import "time"

// childrenCPU is not measured on this system: it returns 0.
func childrenCPU() time.Duration { return 0 }
