package spec

import _ "embed"

//go:embed report.schema.json
var reportSchema string

// ReportSchema is spec/report.schema.json, the shape of the JSON report
// (--report-json), for reading a report back (--rerun-failed).
func ReportSchema() []byte { return []byte(reportSchema) }
