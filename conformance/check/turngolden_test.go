package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/forge-conform/forge-conform/spec/fcp"
)

// A golden cuts a tool use's big argument strings as it cuts big contents,
// keeping the rest of the arguments.
func TestGoldenMessagesCutBigArgs(t *testing.T) {
	long := strings.Repeat("x", bigArgsText+1)
	mid := strings.Repeat("m", bigText+1)
	tests := []struct {
		name, args string
		raw        *string
		want, raw2 string
	}{
		{"small args kept as sent", `{"b": 1, "a": "x"}`, nil, `{"b": 1, "a": "x"}`, ""},
		{"args under bigArgsText kept whole", `{"a": "` + mid + `"}`, nil, `{"a": "` + mid + `"}`, ""},
		{"big string cut, the rest kept", `{"result":"` + long + `","n":1.50,"l":["y"]}`, nil, `{"l":["y"],"n":1.50,"result":"` + big(long) + `"}`, ""},
		{"big args not JSON", `{"r":"` + long, nil, `"` + big(`{"r":"`+long) + `"`, ""},
		{"big raw_args cut", "", &long, "", big(long)},
		{"raw_args under bigArgsText kept whole", "", &mid, "", mid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fcp.Message{Type: "tool_use", ID: "c1", Name: "fcp_echo", Args: json.RawMessage(tt.args), RawArgs: tt.raw}
			got := goldenMessages([]fcp.Message{m})[0]
			if string(got.Args) != tt.want {
				t.Errorf("args = %.200s (%d bytes), want %.200s (%d bytes)", got.Args, len(got.Args), tt.want, len(tt.want))
			}
			if tt.raw != nil && *got.RawArgs != tt.raw2 {
				t.Errorf("raw_args = %.200q (%d bytes), want %.200q (%d bytes)", *got.RawArgs, len(*got.RawArgs), tt.raw2, len(tt.raw2))
			}
		})
	}
}
