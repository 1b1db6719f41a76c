// Package journal is the reference tool journal of TOOL_EXECUTOR_SRD.md
// §3.8.4: a SQLite database (modernc.org/sqlite, no cgo) in WAL mode with
// synchronous=FULL, in a directory the runner names, that durably records
// each turn as it runs: the model's response with its tool calls as it
// arrives (FR-RES-04a), every history message in FR-RES-01's order (the
// tool uses of a batch, then each result the moment it is complete, before
// the next tool starts: FR-RES-04b), and the resume of each batch. Streamed
// tool output is never written (FR-OUT-03).
//
// After a crash, Open and Recover read the interrupted turn back: its
// history, its last batch (calls in order, the results that exist) and
// whether the user must be asked (FR-RES-05). Resolve records the user's
// choice; nothing is re-run (FR-RES-04c) and nothing is invented.
//
// A journal that is corrupt, written by a newer schema, or held by another
// process is an error; it is never replaced or repaired.
package journal

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// File names inside the journal directory.
const (
	DBName   = "forge-journal.sqlite"
	LockName = "forge-journal.lock"
)

// SchemaVersion is the PRAGMA user_version this package writes. A journal
// with a higher version was written by a newer implementation and is
// refused.
const SchemaVersion = 1

// Errors Open wraps, for errors.Is.
var (
	ErrLocked  = errors.New("journal is locked by another process")
	ErrCorrupt = errors.New("journal is corrupt")
	ErrNewer   = errors.New("journal has a newer schema")
)

const schema = `
CREATE TABLE turn (
  id     INTEGER PRIMARY KEY,
  seq    INTEGER NOT NULL,
  ended  TEXT               -- the end state; NULL while the turn runs
);
CREATE TABLE batch (
  id      INTEGER PRIMARY KEY,
  turn    INTEGER NOT NULL REFERENCES turn(id),
  n       INTEGER NOT NULL,  -- 1 for the turn's first batch
  text    TEXT NOT NULL,     -- the assistant text of the response
  state   TEXT NOT NULL,     -- received, resolved, resumed (persisted: written by earlier versions, read as received)
  UNIQUE (turn, n)
);
CREATE TABLE call (
  batch    INTEGER NOT NULL REFERENCES batch(id),
  idx      INTEGER NOT NULL, -- the model's order (FR-RES-01a)
  id       TEXT NOT NULL,
  name     TEXT NOT NULL,
  args     TEXT,             -- JSON, or NULL when raw_args is set
  raw_args TEXT,
  PRIMARY KEY (batch, idx)
);
CREATE TABLE message (
  pos     INTEGER PRIMARY KEY,  -- persistence order
  turn    INTEGER NOT NULL REFERENCES turn(id),
  batch   INTEGER,              -- the batch of a tool use or result
  call_id TEXT,                 -- the call of a tool use or result
  type    TEXT NOT NULL,
  body    TEXT NOT NULL         -- the fcp.Message as JSON
);
CREATE INDEX message_turn ON message(turn, pos);
`

// Journal is one open journal. It is not safe for concurrent use: one turn
// writes it at a time.
type Journal struct {
	dir  string
	db   *sql.DB
	lock *os.File
	turn int64 // the running turn's row, 0 when none
}

// Open opens (or creates) the journal in dir, taking its lock. It fails
// with ErrLocked when another process holds it, ErrCorrupt when the
// database cannot be read or fails its check, ErrNewer when it was written
// by a newer schema. It never replaces an existing file.
func Open(dir string) (*Journal, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("journal directory %q is not absolute; name the journal directory by its absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: creating directory %s: %w", dir, err)
	}
	lockPath := filepath.Join(dir, LockName)
	lock, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: opening lock %s: %w", lockPath, err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lockPath)
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by pid %s; wait for it to end or use another journal directory",
				ErrLocked, dir, string(holder))
		}
		return nil, fmt.Errorf("journal: locking %s: %w", lockPath, err)
	}
	_ = lock.Truncate(0)
	_, _ = lock.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	j, err := open(dir)
	if err != nil {
		_ = unix.Flock(int(lock.Fd()), unix.LOCK_UN)
		lock.Close()
		return nil, err
	}
	j.lock = lock
	return j, nil
}

func open(dir string) (*Journal, error) {
	path := filepath.Join(dir, DBName)
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
		"&_pragma=busy_timeout(0)&_pragma=foreign_keys(ON)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one connection: its pragmas hold for every statement
	j := &Journal{dir: dir, db: db}
	if err := j.check(path); err != nil {
		db.Close()
		return nil, err
	}
	return j, nil
}

// check verifies the file and creates the schema in a new journal.
func (j *Journal) check(path string) error {
	corrupt := func(err error) error {
		return fmt.Errorf("%w: %s: %v; it was left as it is: move it aside to start a fresh journal", ErrCorrupt, path, err)
	}
	var mode string
	if err := j.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		return corrupt(err)
	}
	var ok string
	if err := j.db.QueryRow("PRAGMA quick_check").Scan(&ok); err != nil {
		return corrupt(err)
	}
	if ok != "ok" {
		return corrupt(errors.New(ok))
	}
	var version int
	if err := j.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return corrupt(err)
	}
	switch {
	case version > SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this implementation reads up to %d; use a newer implementation or another journal directory",
			ErrNewer, path, version, SchemaVersion)
	case version == SchemaVersion:
		return nil
	}
	var tables int
	if err := j.db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return corrupt(err)
	}
	if tables > 0 {
		return corrupt(fmt.Errorf("it has %d schema objects but no schema version; it is not a journal this implementation wrote", tables))
	}
	tx, err := j.db.Begin()
	if err != nil {
		return fmt.Errorf("journal: creating the schema in %s: %w", path, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return fmt.Errorf("journal: creating the schema in %s: %w", path, err)
	}
	if _, err := tx.Exec("PRAGMA user_version = " + strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("journal: creating the schema in %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal: creating the schema in %s: %w", path, err)
	}
	return nil
}

// Dir is the journal's directory.
func (j *Journal) Dir() string { return j.dir }

// Close closes the database and releases the lock.
func (j *Journal) Close() error {
	err := j.db.Close()
	if j.lock != nil {
		_ = unix.Flock(int(j.lock.Fd()), unix.LOCK_UN)
		j.lock.Close()
		j.lock = nil
	}
	return err
}

// ErrInterrupted is returned by BeginTurn when the journal holds a turn that
// was interrupted and not recovered.
var ErrInterrupted = errors.New("journal holds an interrupted turn")

// BeginTurn starts recording a new turn (seq is the request's, for the
// logs). It refuses while an interrupted turn waits for recovery, so that
// no journaled batch is ever dropped.
func (j *Journal) BeginTurn(seq int64) error {
	var id int64
	err := j.db.QueryRow("SELECT id FROM turn WHERE ended IS NULL ORDER BY id DESC LIMIT 1").Scan(&id)
	switch {
	case err == nil:
		return fmt.Errorf("%w (turn %d in %s); send recover first", ErrInterrupted, id, j.dir)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("journal: reading %s: %w", j.dir, err)
	}
	res, err := j.db.Exec("INSERT INTO turn(seq) VALUES (?)", seq)
	if err != nil {
		return fmt.Errorf("journal: beginning a turn in %s: %w", j.dir, err)
	}
	j.turn, err = res.LastInsertId()
	return err
}

func (j *Journal) running() error {
	if j.turn == 0 {
		return errors.New("journal: no turn is being recorded (BeginTurn or Recover first)")
	}
	return nil
}

// Received records the model's response of batch n as it arrives, its text
// and its tool calls in order, before any of it is persisted to history
// (FR-RES-04a).
func (j *Journal) Received(n int, text string, calls []fcp.ModelCall) error {
	if err := j.running(); err != nil {
		return err
	}
	tx, err := j.db.Begin()
	if err != nil {
		return fmt.Errorf("journal: recording batch %d: %w", n, err)
	}
	defer tx.Rollback()
	res, err := tx.Exec("INSERT INTO batch(turn, n, text, state) VALUES (?, ?, ?, 'received')", j.turn, n, text)
	if err != nil {
		return fmt.Errorf("journal: recording batch %d: %w", n, err)
	}
	b, _ := res.LastInsertId()
	for i, c := range calls {
		var args, raw any
		if c.RawArgs != nil {
			raw = *c.RawArgs
		} else {
			args = string(c.Args)
		}
		if _, err := tx.Exec("INSERT INTO call(batch, idx, id, name, args, raw_args) VALUES (?, ?, ?, ?, ?, ?)",
			b, i, c.ID, c.Name, args, raw); err != nil {
			return fmt.Errorf("journal: recording call %q of batch %d: %w", c.ID, n, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal: recording batch %d: %w", n, err)
	}
	return nil
}

// Persisted records one history message in persistence order. n is the
// batch a tool use or result belongs to (0 for user and assistant text
// outside a batch). A crash while a batch is persisted leaves its text
// and first tool uses in the history; Resolve completes it. It returns
// once the message is durable.
func (j *Journal) Persisted(n int, m fcp.Message) error {
	if err := j.running(); err != nil {
		return err
	}
	tx, err := j.db.Begin()
	if err != nil {
		return fmt.Errorf("journal: persisting a %s message: %w", m.Type, err)
	}
	defer tx.Rollback()
	if err := j.insert(tx, n, m); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal: persisting a %s message: %w", m.Type, err)
	}
	return nil
}

func (j *Journal) insert(tx *sql.Tx, n int, m fcp.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("journal: encoding a %s message: %w", m.Type, err)
	}
	var batch, callID any
	if n > 0 {
		if err := tx.QueryRow("SELECT id FROM batch WHERE turn = ? AND n = ?", j.turn, n).Scan(&batch); err != nil {
			return fmt.Errorf("journal: batch %d was not received before its messages: %w", n, err)
		}
	}
	if m.ID != "" {
		callID = m.ID
	}
	if _, err := tx.Exec("INSERT INTO message(turn, batch, call_id, type, body) VALUES (?, ?, ?, ?, ?)",
		j.turn, batch, callID, m.Type, string(body)); err != nil {
		return fmt.Errorf("journal: persisting a %s message: %w", m.Type, err)
	}
	return nil
}

// Resuming records that batch n is complete and the model is asked again
// (FR-RES-02): a crash after this point has no batch to recover.
func (j *Journal) Resuming(n int) error {
	if err := j.running(); err != nil {
		return err
	}
	if _, err := j.db.Exec("UPDATE batch SET state = 'resumed' WHERE turn = ? AND n = ?", j.turn, n); err != nil {
		return fmt.Errorf("journal: recording the resume after batch %d: %w", n, err)
	}
	return nil
}

// Ended records the end of the running turn.
func (j *Journal) Ended(end string) error {
	if err := j.running(); err != nil {
		return err
	}
	if _, err := j.db.Exec("UPDATE turn SET ended = ? WHERE id = ?", end, j.turn); err != nil {
		return fmt.Errorf("journal: recording the end of the turn: %w", err)
	}
	j.turn = 0
	return nil
}
