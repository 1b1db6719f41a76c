package leftover

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Self is this process as an owner.
func Self() Owner {
	o := Owner{Pid: os.Getpid(), NS: pidNS("self")}
	if st, err := readStat("self"); err == nil {
		o.Start = st.start
	}
	return o
}

// Dead reports whether the owner's process is certainly gone: no process
// has its pid, or the one that has it started at another time (the pid was
// reused), or it is a zombie. An owner in another pid namespace, or one
// the system cannot tell about, is not dead.
func (o Owner) Dead() bool {
	if o.Pid <= 0 {
		return false
	}
	if ns := pidNS("self"); o.NS != 0 && ns != 0 && o.NS != ns {
		return false
	}
	st, err := readStat(strconv.Itoa(o.Pid))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false
	case st.state == 'Z' || st.state == 'X':
		return true
	}
	return o.Start != 0 && st.start != o.Start
}

type stat struct {
	state byte
	start uint64
}

// readStat reads the state and start time of /proc/PID/stat.
func readStat(pid string) (stat, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return stat{}, err
	}
	// pid (comm) state ppid ... starttime is field 22; comm may hold
	// spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, errors.New("leftover: malformed /proc/" + pid + "/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, errors.New("leftover: malformed /proc/" + pid + "/stat")
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return stat{}, errors.New("leftover: malformed /proc/" + pid + "/stat")
	}
	return stat{state: f[0][0], start: start}, nil
}

// pidNS is the inode of the pid namespace of /proc/PID, or 0.
func pidNS(pid string) uint64 {
	l, err := os.Readlink("/proc/" + pid + "/ns/pid")
	if err != nil {
		return 0
	}
	l = strings.TrimSuffix(strings.TrimPrefix(l, "pid:["), "]")
	n, _ := strconv.ParseUint(l, 10, 64)
	return n
}
