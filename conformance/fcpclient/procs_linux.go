package fcpclient

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// killDescendants freezes the tree rooted at pid with SIGSTOP until no new
// descendant appears, then kills every member and the group with SIGKILL.
func killDescendants(pid int) {
	frozen := map[int]bool{}
	for round := 0; round < 50; round++ {
		fresh := false
		for _, p := range descendants(pid) {
			if !frozen[p] {
				frozen[p] = true
				fresh = true
				_ = syscall.Kill(p, syscall.SIGSTOP)
			}
		}
		if !fresh {
			break
		}
	}
	killGroup(pid)
	for p := range frozen {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists pid and every process below it, by parent pid.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parent(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// stat returns the fields of /proc/PID/stat after the command name.
func stat(pid int) ([][]byte, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := bytes.Fields(b[i+1:])
	return f, len(f) >= 2
}

func parent(pid int) (int, bool) {
	f, ok := stat(pid)
	if !ok {
		return 0, false
	}
	pp, err := strconv.Atoi(string(f[1]))
	return pp, err == nil
}

func zombie(pid int) bool {
	f, ok := stat(pid)
	return ok && (f[0][0] == 'Z' || f[0][0] == 'X')
}
