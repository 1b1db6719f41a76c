// Package jsonwalk rewrites the strings of a decoded JSON value (the
// any-tree encoding/json decodes into), wherever they stand.
package jsonwalk

// Strings replaces every string in v, in objects and arrays at any depth,
// by f of it, in place where v holds maps and slices, and returns the
// result (a lone string is returned as f of it). Object keys are kept.
func Strings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		for k, e := range v {
			v[k] = Strings(e, f)
		}
	case []any:
		for i, e := range v {
			v[i] = Strings(e, f)
		}
	}
	return v
}
