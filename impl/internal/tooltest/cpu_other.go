//go:build !unix

package tooltest

import "time"

// CPUTime is not measured on this system: it returns 0.
func CPUTime() time.Duration { return 0 }
