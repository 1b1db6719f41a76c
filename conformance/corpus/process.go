package corpus

// ProcessSpec is what the runner observes of the implementation's process
// during a case, from outside (spec/INTERPRETATIONS.md I-EXE-30..39): the
// case runs only on an implementation the runner starts as a process
// (--binary, session mode), and is skipped with the reason where the
// machine cannot observe it. A failure names the case's primary ID.
type ProcessSpec struct {
	// NoNetwork: during the case the implementation's process tree,
	// alone in a network namespace of its own, sends no IP packet and
	// tries to reach no address (a DNS lookup included).
	NoNetwork bool `json:"no_network,omitempty"`
	// MaxMemoryGrowthMiB bounds, in MiB, how far the memory of the
	// implementation's process tree (anonymous, shared and swapped out,
	// as its memory cgroup counts it) may rise during a turn case above
	// its level when the turn starts. The runner counts the turn's
	// stdout and stderr chunks instead of keeping them, so the case may
	// stream a gigabyte.
	MaxMemoryGrowthMiB int `json:"max_memory_growth_mib,omitempty"`
}

// Observed reports whether c observes the implementation's process from
// outside (Process set). Like durability cases, such cases run only
// through a process and have no golden file: the goldens are recorded
// in-process, and the case's expectation and observation are the whole
// check.
func (c *Case) Observed() bool { return c.Process != nil }

// NeedsProcess reports whether c runs only on an implementation the runner
// starts as a process: a durability case, a scaling case (it times the
// process's CPU) or an observed one.
func (c *Case) NeedsProcess() bool { return c.Durable() || c.Scaling != nil || c.Observed() }
