package corpus_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/forge-conform/forge-conform/conformance/corpus"
)

// benignFile is a turn case whose tool streams a hostile chunk, with the
// screens and benign pairs given.
func benignFile(screens, benign string) string {
	return `{"spec": "tool_executor", "cases": [{"name": "h", "op": "turn", "ids": ["FR-OUT-02"],
	  "turn": {"user": "go", "model": [{"tool_calls": [{"id": "h1", "name": "fcp_echo",
	    "args": {"result": "r", "chunks": [{"stream": "stdout", "text": "\u001b[31mred\n"}]}}]}, {"text": "end"}]` +
		screens + benign + `},
	  "expect": {"turn": {"end": ["done"]}}}]}`
}

const benignScreens = `, "screens": [{"name": "end", "at": {"event": "end"}, "width": 80, "height": 24, "expect": {}}]`

func TestBenign(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		want   string // a substring of the error; "" loads
		benign string // the benign model's chunk text
		marked string // the marked model's
	}{
		{"valid", benignFile(benignScreens, `, "benign": [{"hostile": "\u001b[31mred\n", "benign": "red\n"}]`), "", "red\n", "sfe\n"},
		{"no screens", benignFile("", `, "benign": [{"hostile": "\u001b[31mred\n", "benign": "red\n"}]`),
			`"benign" compares screens: the turn needs "screens"`, "", ""},
		{"hostile not in the script", benignFile(benignScreens, `, "benign": [{"hostile": "\u001b[31mred", "benign": "red"}]`),
			`benign[0].hostile "\x1b[31mred" is not a string of the model script`, "", ""},
		{"control in the benign text", benignFile(benignScreens, `, "benign": [{"hostile": "\u001b[31mred\n", "benign": "red\r\n"}]`),
			`benign[0].benign holds U+000D`, "", ""},
		{"bidi in the benign text", benignFile(benignScreens, `, "benign": [{"hostile": "\u001b[31mred\n", "benign": "\u202ered\n"}]`),
			`benign[0].benign holds U+202E`, "", ""},
		{"a line without letter or digit", benignFile(benignScreens, `, "benign": [{"hostile": "\u001b[31mred\n", "benign": "red\n✓ -\n"}]`),
			`benign[0].benign line "✓ -" has no ASCII letter or digit`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := corpus.Load(fstest.MapFS{"tool_executor/a.json": {Data: []byte(tt.file)}})
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v; want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			turn := c.Cases[0].Turn
			for _, m := range []struct {
				marked bool
				want   string
			}{{false, tt.benign}, {true, tt.marked}} {
				raw, err := turn.BenignModel(m.marked)
				if err != nil {
					t.Fatal(err)
				}
				var model []struct {
					ToolCalls []struct {
						Args struct {
							Chunks []struct{ Text string }
						}
					} `json:"tool_calls"`
				}
				if err := json.Unmarshal(raw, &model); err != nil {
					t.Fatal(err)
				}
				if got := model[0].ToolCalls[0].Args.Chunks[0].Text; got != m.want {
					t.Errorf("BenignModel(%v): chunk %q, want %q", m.marked, got, m.want)
				}
			}
		})
	}
}

func TestMarked(t *testing.T) {
	for in, want := range map[string]string{
		"✓ approved all":           "✓ bqqspwfe bmm",
		"Zz9 [x] ● LOW fcp_echo\n": "Aa0 [y] ● MPX gdq_fdip\n",
		"":                         "",
	} {
		if got := corpus.Marked(in); got != want {
			t.Errorf("Marked(%q) = %q, want %q", in, got, want)
		}
	}
}
