package jsonwalk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"lone string", `"ab"`, `"AB"`},
		{"nested", `{"k":["x",{"y":"z","n":1,"b":true,"nul":null}]}`, `{"k":["X",{"y":"Z","n":1,"b":true,"nul":null}]}`},
		{"keys kept", `{"key":"v"}`, `{"key":"V"}`},
		{"no strings", `[1,2.5,false]`, `[1,2.5,false]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(Strings(v, strings.ToUpper))
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			_ = json.Unmarshal(got, &a)
			_ = json.Unmarshal([]byte(tc.want), &b)
			if d := cmp.Diff(b, a); d != "" {
				t.Errorf("Strings(%s) differs (-want +got):\n%s", tc.in, d)
			}
		})
	}
}
