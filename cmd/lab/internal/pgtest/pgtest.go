// Package pgtest starts a real PostgreSQL server for tests, from the
// machine's own binaries (Debian's postgresql package: /usr/lib/postgresql/
// N/bin), in a temporary directory, with trust authentication on loopback.
// One server serves a whole test binary; each test gets a database of its
// own (New). Started as root, the server runs as the postgres user, since
// PostgreSQL refuses to run as root. It dies with the test binary (the
// kernel sends it SIGINT, a fast shutdown, when its parent ends), and its
// directory is removed by Stop or, failing that, left in the system's
// temporary directory as pgtest-*.
//
// Where no server can be started (no binaries, no postgres user) the
// tests that need one are skipped with a loud message that says why;
// with PGTEST_REQUIRE=1 (set by .ci/run) they fail instead.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL server.
type Server struct {
	Dir  string // its data and socket directory
	Port int
	cmd  *exec.Cmd
}

var (
	once    sync.Once
	shared  *Server
	why     error
	counter atomic.Int64
)

// URL returns the address of database db on s.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// Get returns the test binary's server, starting it on first use; the
// test is skipped (or fails under PGTEST_REQUIRE=1) if it cannot start.
func Get(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, why = start() })
	if why != nil {
		msg := "PostgreSQL SUITE NOT RUN: no PostgreSQL server could be started here: " + why.Error() +
			" (install Debian's postgresql package: apt-get install -y postgresql)"
		if os.Getenv("PGTEST_REQUIRE") == "1" {
			t.Fatal(msg)
		}
		fmt.Fprintln(os.Stderr, "\n!!! "+msg+" !!!")
		t.Skip(msg)
	}
	return shared
}

// New creates a fresh database on the test binary's server and returns
// its address; it is dropped when the test ends.
func New(t testing.TB) string {
	t.Helper()
	s := Get(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, s.URL("postgres"))
		if err != nil {
			return
		}
		defer admin.Close(ctx)
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return s.URL(name)
}

// Stop stops the test binary's server, if it started, and removes its
// directory: TestMain calls it after the tests.
func Stop() {
	if shared == nil {
		return
	}
	shared.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	done := make(chan struct{})
	go func() { shared.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		shared.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(shared.Dir)
}

// Bin returns the directory of the PostgreSQL server's binaries: the
// newest /usr/lib/postgresql/N/bin, else the one holding initdb on PATH.
func Bin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/postgres, or initdb on PATH)")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// start starts a server in a new temporary directory: initdb, then
// postgres on a free loopback port, and waits until it accepts
// connections. It runs as the postgres user when this process is root.
func start() (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	// As root the server runs as postgres, who must reach its directory:
	// /tmp, whatever TMPDIR says.
	parent := ""
	if os.Geteuid() == 0 {
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "pgtest-")
	if err != nil {
		return nil, err
	}
	cred, err := credential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLines(string(out)))
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// fsync off: a test server's data need not survive a power cut, and
	// the machine's two cores are not spent waiting for the disk.
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB")
	log, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Server{Dir: dir, Port: port, cmd: cmd}
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := pgx.Connect(context.Background(), s.URL("postgres"))
		if err == nil {
			conn.Close(context.Background())
			return s, nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			out, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			os.RemoveAll(dir)
			return nil, fmt.Errorf("postgres did not accept connections in 30 s: %v: %s", err, lastLines(string(out)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// credential is who the server runs as: nil (this process's user) unless
// this process is root, then the postgres user, who is given dir.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and there is no postgres user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort returns a loopback TCP port that is free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}
