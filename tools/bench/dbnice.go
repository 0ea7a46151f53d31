package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dbNicer keeps a local PostgreSQL server's processes at the harness's niceness while
// the harness runs, and gives them back their own when it stops.
//
// Why: -nice puts the server, the references and the load generator at, say, −15, so
// that other work on a shared machine does not skew the figures. PostgreSQL is part
// of what the write scenarios measure, yet it would stay at 0 beside them; and each of
// its backends is the leader of a session of its own (PostgreSQL calls setsid), so
// with autogroup scheduling each competes as a group at niceness 0 against the
// harness's group at −15: about 1/29 of a core's share while the server or the
// generator can run. A backend holding a row lock (an account's balance, the eSIM
// pool) then waits for a CPU while the requests behind its lock wait for it, a
// priority inversion that no deployment with its database on its own host has.
//
// New backends start at 0 (a new session's autogroup starts at 0), so the nicer looks
// for them every dbNiceEvery.
type dbNicer struct {
	nice   int
	parent int // the postmaster
	mu     sync.Mutex
	prev   map[int]procNice // the processes it changed, and what they had
	stop   context.CancelFunc
	done   chan struct{}
}

// procNice is a process's niceness and, when it leads its own session, its autogroup's.
type procNice struct {
	nice, group int
	hasGroup    bool
}

const dbNiceEvery = 200 * time.Millisecond

// postmasterOf returns the process id of the PostgreSQL server that dsn connects to,
// when that server runs on this machine (the backend serving the connection is a
// process here, and its parent is a "postgres").
func postmasterOf(ctx context.Context, dsn string) (int, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return 0, err
	}
	defer func() { _ = db.Close() }() // a query's connection; the query's error is checked
	var backend int
	if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0, err
	}
	st, err := readStat(backend)
	if err != nil {
		return 0, fmt.Errorf("backend %d is not a process here: %w", backend, err)
	}
	if st.comm != "postgres" {
		return 0, fmt.Errorf("process %d here is %q, not the database's backend", backend, st.comm)
	}
	if parent, err := readStat(st.ppid); err != nil || parent.comm != "postgres" {
		return 0, fmt.Errorf("the parent of backend %d is not a postgres process", backend)
	}
	return st.ppid, nil
}

// startDBNice sets the niceness of every child of parent to nice, now and every
// dbNiceEvery until close. It fails, changing nothing, when it can change none of them
// now (a negative niceness needs privilege).
func startDBNice(parent, nice int) (*dbNicer, error) {
	ctx, cancel := context.WithCancel(context.Background())
	d := &dbNicer{nice: nice, parent: parent, prev: map[int]procNice{}, stop: cancel, done: make(chan struct{})}
	if d.apply() == 0 {
		cancel()
		return nil, fmt.Errorf("could not set the niceness of any child of process %d", parent)
	}
	go func() {
		defer close(d.done)
		t := time.NewTicker(dbNiceEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.apply()
			}
		}
	}()
	return d, nil
}

// apply sets the niceness of the children it has not changed yet, and the autogroup's
// of those that have come to lead a session since (a backend calls setsid just after
// its fork, so it may be seen before); it returns how many processes it has changed.
func (d *dbNicer) apply() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, pid := range childrenOf(d.parent) {
		prev, seen := d.prev[pid]
		if seen && prev.hasGroup {
			continue
		}
		now, err := setProcNice(pid, d.nice, !seen)
		if err != nil {
			continue // it exited meanwhile, or is not ours to change
		}
		if seen {
			prev.group, prev.hasGroup = now.group, now.hasGroup
		} else {
			prev = now
		}
		d.prev[pid] = prev
	}
	return len(d.prev)
}

// close stops the nicer and gives the processes that are still children of the
// postmaster their niceness back.
func (d *dbNicer) close() {
	d.stop()
	<-d.done
	d.mu.Lock()
	defer d.mu.Unlock()
	for pid, prev := range d.prev {
		if st, err := readStat(pid); err != nil || st.ppid != d.parent {
			continue
		}
		if prev.hasGroup {
			_ = setAutogroupNice(autogroupPath(pid), prev.group)
		}
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, prev.nice)
	}
}

// setProcNice sets pid's autogroup's niceness when pid leads its own session (a
// session's autogroup is shared by the whole session, so one that leads none is left
// alone) and, with process, pid's own; it returns what they were.
func setProcNice(pid, nice int, process bool) (procNice, error) {
	st, err := readStat(pid)
	if err != nil {
		return procNice{}, err
	}
	prev := procNice{nice: st.nice}
	group := autogroupPath(pid)
	if g, ok := autogroupNice(group); ok && st.session == pid {
		if err := setAutogroupNice(group, nice); err != nil {
			return prev, err
		}
		prev.group, prev.hasGroup = g, true
	}
	if !process {
		return prev, nil
	}
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice); err != nil {
		if prev.hasGroup {
			_ = setAutogroupNice(group, prev.group)
		}
		return prev, err
	}
	return prev, nil
}

func autogroupPath(pid int) string { return "/proc/" + strconv.Itoa(pid) + "/autogroup" }

// childrenOf lists parent's child processes: from /proc/PID/task/PID/children where the
// kernel has it, else by reading every process's parent.
func childrenOf(parent int) []int {
	p := strconv.Itoa(parent)
	var pids []int
	if b, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children"); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid == parent {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat is what the harness reads of /proc/PID/stat.
type procStat struct {
	comm                string
	ppid, session, nice int
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(string(b))
}

// parseStat parses a /proc/PID/stat line: "pid (comm) state ppid pgrp session … nice …",
// where comm may hold spaces and parentheses, so the fields are counted from its last
// ")"; after it, state is field 3 of proc(5), ppid 4, session 6 and nice 19.
func parseStat(line string) (procStat, error) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return procStat{}, errors.New("stat: no (comm)")
	}
	f := strings.Fields(line[end+1:])
	if len(f) < 17 {
		return procStat{}, errors.New("stat: too few fields")
	}
	var st procStat
	st.comm = line[open+1 : end]
	var errs [3]error
	st.ppid, errs[0] = strconv.Atoi(f[1])
	st.session, errs[1] = strconv.Atoi(f[3])
	st.nice, errs[2] = strconv.Atoi(f[16])
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("stat: %w", err)
	}
	return st, nil
}
