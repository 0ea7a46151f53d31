package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is a server subprocess: skygate serve or a reference server of this binary.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan error
	http    string // http://127.0.0.1:port
	mtls    string // https://127.0.0.1:port, skygate only
	ops     string // http://127.0.0.1:port, skygate's operator listener (/metrics)
}

// startProc starts argv with env, pinned to the server CPU when the harness pins, with
// its stderr (the JSON log) in logPath. When waitLog is set it waits for the
// `"msg":"listening"` line and takes the addresses from it; otherwise the caller knows
// the addresses and waits for readiness itself.
func (h *harness) startProc(ctx context.Context, name string, argv, env []string, logPath string, waitLog bool) (*proc, error) {
	argv = h.wrap(argv)
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		_ = f.Close() // the start error is the one to report
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, logFile: f, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	if !waitLog {
		return p, nil
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if p.http, p.mtls, p.ops = listeningAddrs(logPath); p.http != "" {
			return p, nil
		}
		select {
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("%s exited before listening (%w):\n%s", name, err, tail(logPath))
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s logged no listening line:\n%s", name, tail(logPath))
		}
	}
}

// wrap prefixes argv with the pinning and the niceness of the server core. Both
// taskset and nice exec their command, so the process id stays the server's.
func (h *harness) wrap(argv []string) []string {
	if h.pinned {
		argv = append([]string{"taskset", "-c", h.opts.serverCPU}, argv...)
	}
	if h.opts.nice != 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(h.opts.nice)}, argv...)
	}
	return argv
}

// pid is the server's process id; taskset execs the server, so it is the server's.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop asks the process to shut down gracefully and kills it if it does not.
func (p *proc) stop() {
	defer func() { _ = p.logFile.Close() }() // the process wrote its log; nothing is lost
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		p.done <- <-p.done // wait for it; keep its exit status, as above
	}
}

// listeningLine is the log line both skygate and the reference servers write once
// their listeners accept connections.
type listeningLine struct {
	Msg  string `json:"msg"`
	HTTP string `json:"http"`
	MTLS string `json:"mtls"`
	Ops  string `json:"ops,omitempty"`
}

// listeningAddrs finds the listening line in the log file: the plain, mTLS and operator
// listeners' base URLs.
func listeningAddrs(path string) (string, string, string) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", ""
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var l listeningLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
			return l.HTTP, l.MTLS, l.Ops
		}
	}
	return "", "", ""
}

// tail returns the end of a log file for error messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close() // the status is the answer
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s never answered 200: %w", url, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = ln.Close() }() // only its port was wanted
	return ln.Addr().String(), nil
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat. Linux fixes
// it at 100 on every architecture Go supports.
const clockTicks = 100

// procCPU returns the user plus system CPU time of the process so far, all threads
// included (10 ms resolution).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields count from the
	// last ')'. utime and stime are fields 14 and 15 of the line, 12 and 13 after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc/PID/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("malformed /proc/PID/stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// selfCPU returns this process's CPU time (microsecond resolution).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pinSelf moves every thread of this process onto cpus (taskset -a) and sizes
// GOMAXPROCS to them. Threads created later inherit the mask. It returns a function
// restoring the previous mask and GOMAXPROCS.
func pinSelf(cpus string) (func(), error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("pinning needs Linux")
	}
	if runtime.NumCPU() < 2 {
		return nil, errors.New("one CPU only: the server and the load generator would share it")
	}
	n, err := countCPUs(cpus)
	if err != nil {
		return nil, err
	}
	prev := allowedCPUs()
	if err := taskset(cpus); err != nil {
		return nil, err
	}
	procs := runtime.GOMAXPROCS(n)
	return func() {
		runtime.GOMAXPROCS(procs)
		if prev != "" {
			_ = taskset(prev)
		}
	}, nil
}

// setNice sets the niceness of every thread of this process; threads created later
// and child processes inherit it. With autogroup scheduling (the default on
// desktop-configured kernels) niceness only ranks threads within a session, so it
// also sets the niceness of this session's autogroup, which the server's share of a
// core competes with other sessions' work through. It returns a function restoring the
// autogroup's niceness.
func setNice(n int) (func(), error) {
	restore := func() {}
	const self = "/proc/self/autogroup"
	if prev, ok := autogroupNice(self); ok {
		if err := setAutogroupNice(self, n); err != nil {
			return nil, fmt.Errorf("autogroup nice %d: %w", n, err)
		}
		restore = func() { _ = setAutogroupNice(self, prev) }
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return restore, err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil {
			return restore, fmt.Errorf("nice %d: %w", n, err)
		}
	}
	return restore, nil
}

// autogroupNice reads the niceness of an autogroup from its file (/proc/PID/autogroup,
// "/autogroup-6350 nice 0"); false when the file or the kernel's autogroups are not
// there.
func autogroupNice(file string) (int, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0, false
	}
	n, err := strconv.Atoi(f[2])
	return n, err == nil
}

// setAutogroupNice sets the niceness of the autogroup of file (/proc/PID/autogroup).
func setAutogroupNice(file string, n int) error {
	return os.WriteFile(file, []byte(strconv.Itoa(n)), 0)
}

func taskset(cpus string) error {
	out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -c %s: %w: %s", cpus, err, bytes.TrimSpace(out))
	}
	return nil
}

// allowedCPUs is this process's current CPU list.
func allowedCPUs() string { return procAllowedCPUs(os.Getpid()) }

// procAllowedCPUs is the CPU list of process pid (of its main thread), "" if it cannot
// be read.
func procAllowedCPUs(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// countCPUs counts the CPUs of a list such as "1", "0-1" or "1,3".
func countCPUs(list string) (int, error) {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("bad CPU list %q", list)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, fmt.Errorf("bad CPU list %q", list)
			}
		}
		n += b - a + 1
	}
	return n, nil
}

// loadAvg is the one-minute load average: other work on the machine skews figures.
func loadAvg() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
