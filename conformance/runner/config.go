package runner

import (
	"encoding/json"
	"fmt"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/conformance/fixture"
)

// config is the config object a case's calls carry: the case's own, with
// Options.Config merged over it, $ROOT and $OUTSIDE expanded.
func (r *Runner) config(c *corpus.Case, l fixture.Layout) json.RawMessage {
	return caseConfig(c, r.opts.Config, l)
}

// caseConfig is c's config with overlay (Options.Config) merged over it
// and $ROOT/$OUTSIDE expanded.
func caseConfig(c *corpus.Case, overlay json.RawMessage, l fixture.Layout) json.RawMessage {
	raw := c.Config
	if len(overlay) > 0 {
		raw = merge(raw, overlay)
	}
	return expand(raw, l)
}

// merge merges over into base. Both were checked to be JSON objects (New
// and the corpus schema), so merging cannot fail.
func merge(base, over json.RawMessage) json.RawMessage {
	var b, o map[string]any
	if len(base) > 0 {
		_ = json.Unmarshal(base, &b)
	}
	_ = json.Unmarshal(over, &o)
	out, _ := json.Marshal(mergeObjects(b, o))
	return out
}

// mergeObjects returns base with over merged in: nested objects merge key by
// key, every other value of over replaces base's.
func mergeObjects(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bo, ok1 := out[k].(map[string]any)
		oo, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeObjects(bo, oo)
			continue
		}
		out[k] = v
	}
	return out
}

// checkConfig validates Options.Config: a JSON object with a "tools" object.
func checkConfig(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return fmt.Errorf("--config: %v (want a JSON object like {\"tools\":{\"search_files\":{\"backend\":\"rg\"}}})", err)
	}
	for k, v := range top {
		if _, ok := v.(map[string]any); !ok || k != "tools" {
			return fmt.Errorf("--config: top-level key %q: only a \"tools\" object is allowed", k)
		}
	}
	return nil
}
