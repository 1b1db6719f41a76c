package journal

import (
	"database/sql"
	"strconv"
	"testing"
)

// bumpVersion sets the user_version of the database at path.
func bumpVersionAt(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("PRAGMA user_version = " + strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
}

// BumpVersion is bumpVersionAt for the external tests.
var BumpVersion = bumpVersionAt
