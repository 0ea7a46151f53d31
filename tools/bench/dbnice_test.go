package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	t.Parallel()
	// comm with a space and a parenthesis, as the kernel writes it.
	line := "2288 (postgres: a) b) S 2287 2288 2288 0 -1 4194624 79 0 0 0 0 1 0 0 25 5 1 0 1169 221 10 18446744073709551615"
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procStat{comm: "postgres: a) b", ppid: 2287, session: 2288, nice: 5}); st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "12 comm S 1", "12 (x) S 1 2 3"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

// TestDBNicer stands a shell in for the postmaster: its children, one leading a
// session of its own as a backend does and one not, take the niceness, a child started
// later takes it at the next look, and closing gives it back where that is allowed.
func TestDBNicer(t *testing.T) {
	t.Parallel()
	sh := exec.Command("sh", "-c", "setsid sleep 30 & sleep 30 & read x; sleep 30 & wait")
	later, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sh.Process.Kill(); _ = sh.Wait() })
	parent := sh.Process.Pid
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("after 10 s: %s", what)
			}
		}
	}
	waitFor("two children", func() bool { return len(childrenOf(parent)) == 2 })

	const nice = 7
	allAt := func(n int) func() bool {
		return func() bool {
			kids := childrenOf(parent)
			return len(kids) == n && !slices.ContainsFunc(kids, func(pid int) bool {
				st, err := readStat(pid)
				return err != nil || st.nice != nice
			})
		}
	}
	d, err := startDBNice(parent, nice)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("two children at niceness 7", allAt(2))
	if _, err := later.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitFor("the child started later at niceness 7", allAt(3))
	leaders := 0
	for _, pid := range childrenOf(parent) {
		if st, _ := readStat(pid); st.session != pid {
			continue
		}
		leaders++
		if b, err := os.ReadFile(autogroupPath(pid)); err == nil {
			if f := strings.Fields(string(b)); len(f) != 3 || f[2] != "7" {
				t.Errorf("session leader %d: autogroup %q, want nice 7", pid, b)
			}
		}
	}
	if leaders != 1 {
		t.Errorf("%d children lead a session, want 1 (setsid)", leaders)
	}
	d.close()
	if _, err := startDBNice(childrenOf(parent)[0], nice); err == nil {
		t.Error("startDBNice succeeded for a process without children (a sleep)")
	}
	if os.Geteuid() != 0 {
		return // lowering a niceness again takes privilege
	}
	for _, pid := range childrenOf(parent) {
		if st, err := readStat(pid); err != nil || st.nice != 0 {
			t.Errorf("after close: %d at %+v (%v), want niceness 0", pid, st, err)
		}
	}
}
