package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/forge-conform/forge-conform/conformance/corpus"
	"github.com/forge-conform/forge-conform/spec"
)

// nothingToRerun ends a --rerun-failed run before it starts: the report
// names no failed or errored case the corpus still has. It is not an
// error: run prints it on stdout and exits 0.
type nothingToRerun struct{ msg string }

func (e nothingToRerun) Error() string { return e.msg }

// rerunStatus reports whether --rerun-failed runs again a case that had
// status in the earlier report.
func rerunStatus(status string) bool { return status == "failed" || status == "errored" }

// earlierReport is what --rerun-failed reads of a JSON report.
type earlierReport struct {
	Cases []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"cases"`
}

// rerunCases reads the JSON report at path (written by --report-json) and
// returns the full names of its failed and errored cases that cases still
// has, in the report's order, and a warning for each one it no longer has.
// A missing or unreadable file, or one that is not such a report, is an
// error; a report with nothing to rerun is a nothingToRerun.
func rerunCases(path string, cases []*corpus.Case) (names, warnings []string, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("--rerun-failed %s: no such file; give the JSON report an earlier run wrote with --report-json FILE", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--rerun-failed: %w", err)
	}
	if err := validateReport(raw); err != nil {
		return nil, nil, fmt.Errorf("--rerun-failed %s: not a forge-conform JSON report (%v); give the file an earlier run wrote with --report-json FILE", path, err)
	}
	var rep earlierReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		return nil, nil, fmt.Errorf("--rerun-failed %s: not a forge-conform JSON report (%v); give the file an earlier run wrote with --report-json FILE", path, err)
	}
	have := map[string]bool{}
	for _, c := range cases {
		have[c.FullName()] = true
	}
	failed := 0
	for _, c := range rep.Cases {
		if !rerunStatus(c.Status) || slices.Contains(names, c.Name) {
			continue
		}
		failed++
		if !have[c.Name] {
			warnings = append(warnings, fmt.Sprintf("--rerun-failed %s: the corpus has no case %s (renamed or removed since); not rerunning it", path, c.Name))
			continue
		}
		names = append(names, c.Name)
	}
	switch {
	case failed == 0:
		return nil, nil, nothingToRerun{fmt.Sprintf("nothing to rerun: no case failed or errored in %s (%d cases listed)", path, len(rep.Cases))}
	case len(names) == 0:
		return nil, warnings, nothingToRerun{fmt.Sprintf("nothing to rerun: none of the %d failed or errored case(s) in %s is in the corpus any more", failed, path)}
	}
	return names, warnings, nil
}

// validateReport checks raw against spec/report.schema.json.
func validateReport(raw []byte) error {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("report.schema.json", bytes.NewReader(spec.ReportSchema())); err != nil {
		return fmt.Errorf("the embedded report schema does not load: %w", err)
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		return fmt.Errorf("the embedded report schema does not compile: %w", err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(firstCause(ve))
		}
		return err
	}
	return nil
}

// firstCause is the innermost first cause of a validation error, in one
// line: "at /cases/0: missing properties: 'status'".
func firstCause(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := ve.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return "at " + loc + ": " + strings.TrimSpace(ve.Message)
}
