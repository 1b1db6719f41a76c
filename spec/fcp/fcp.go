// Package fcp holds the message types of the Forge Conformance Protocol,
// version 1 (FCP/1), and validates messages against the JSON Schemas in
// spec/fcp/schema. The prose specification is spec/PROTOCOL.md.
//
// FCP/1 is JSON Lines over stdin/stdout: one request object per line in, one
// response object per line out, in order, each response echoing the
// request's seq.
package fcp

import "encoding/json"

// Version is the protocol version every request carries in "fcp".
const Version = 1

// ReferenceName is the name forge-conform's reference implementation gives
// in hello. A run against it holds it to its own goldens byte for byte.
const ReferenceName = "forge-conform-reference"

// TestTools are the tools of PROTOCOL.md §9.6 that an implementation
// registers when hello asks for test_tools: tools of exact behaviour that
// the framework's rules (tool_executor) are checked with, in turns and in
// single calls.
var TestTools = []string{"fcp_echo", "fcp_fail", "fcp_panic", "fcp_sleep", "fcp_touch", "fcp_guarded"}

// The ops of FCP/1. Hello and Call are required of every implementation;
// the others are declared in hello's "ops".
const (
	OpHello       = "hello"
	OpCall        = "call"
	OpReset       = "reset"
	OpBye         = "bye"
	OpDefinitions = "definitions"
	// OpSummary asks for a call's approval summary and risk level
	// (FR-APR-01, FR-APR-06) without running it.
	OpSummary = "summary"
)

// Request is one line written to the implementation's stdin.
type Request struct {
	FCP  int    `json:"fcp"`
	Seq  int64  `json:"seq"`
	Op   string `json:"op"`
	Case string `json:"case,omitempty"`
	// TestTools, in hello, asks the implementation to register the fcp_*
	// test tools (PROTOCOL.md §9.6) for the rest of the process.
	TestTools bool            `json:"test_tools,omitempty"`
	Call      *Call           `json:"call,omitempty"`
	Ctx       *Ctx            `json:"ctx,omitempty"`
	Config    json.RawMessage `json:"config,omitempty"`
}

// Call is one tool call: its id, the tool's name and the JSON arguments.
type Call struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Ctx is the per-call context of the executor SRD's ToolCtx that a test can
// set. Absent fields take the SRD defaults (see DefaultCtx).
type Ctx struct {
	WorkingDir             string `json:"working_dir"`
	MaxOutputBytes         *int64 `json:"max_output_bytes,omitempty"`
	AvailableCapacityBytes *int64 `json:"available_capacity_bytes,omitempty"`
	// JournalDir, in turn and recover (PROTOCOL.md §10), is the absolute
	// path of the directory that holds the implementation's tool journal;
	// empty means no journal. Other ops ignore it.
	JournalDir string `json:"journal_dir,omitempty"`
}

// Defaults for Ctx fields: CFG-OUT-01's max_bytes and FR-REG-04b's
// conservative fixed capacity.
const (
	DefaultMaxOutputBytes         = 102400
	DefaultAvailableCapacityBytes = 65536
)

// Budget returns min(max_output_bytes, available_capacity_bytes) with
// defaults applied: the effective_max of FR-OUT-04 and FR-LD-OUT-03.
func (c *Ctx) Budget() (maxOutput, capacity int64) {
	maxOutput, capacity = DefaultMaxOutputBytes, DefaultAvailableCapacityBytes
	if c == nil {
		return
	}
	if c.MaxOutputBytes != nil {
		maxOutput = *c.MaxOutputBytes
	}
	if c.AvailableCapacityBytes != nil {
		capacity = *c.AvailableCapacityBytes
	}
	return
}

// EffectiveMax is min(max_output_bytes, available_capacity_bytes).
func (c *Ctx) EffectiveMax() int64 {
	m, a := c.Budget()
	return min(m, a)
}

// Response is one line read from the implementation's stdout. Which fields
// are set depends on the op: hello fills FCP, Implementation, Tools and Ops;
// call fills OK and either Content+AllowTruncation or Error; definitions
// fills OK and Definitions.
type Response struct {
	Seq            int64           `json:"seq"`
	FCP            int             `json:"fcp,omitempty"`
	Implementation *Implementation `json:"implementation,omitempty"`
	Tools          []string        `json:"tools,omitempty"`
	Ops            []string        `json:"ops,omitempty"`
	// Policies (hello, optional) declare the implementation's choices
	// where a spec leaves behaviour to the implementation, e.g.
	// {"lp1_missing_file":"refuse"}; cases of a policy run only when it is
	// declared with their value (spec/PROTOCOL.md).
	Policies map[string]string `json:"policies,omitempty"`
	// SRDVersions (hello, optional) state the SRD version the
	// implementation implements, by spec (catalog) name, e.g.
	// {"list_directory":"1.1"}: cases a later version requires ("since")
	// are skipped for it (spec/PROTOCOL.md). A spec it does not name is
	// taken at the catalog's version.
	SRDVersions map[string]string `json:"srd_versions,omitempty"`
	// CrashPoints (hello, optional) name the crash points the
	// implementation honours beyond the base three of §10.2
	// (ExtraCrashPoints): a durability case that asks for another is
	// skipped for it.
	CrashPoints []string `json:"crash_points,omitempty"`

	OK              *bool        `json:"ok,omitempty"`
	Content         *string      `json:"content,omitempty"`
	AllowTruncation *bool        `json:"allow_truncation,omitempty"`
	Error           *Error       `json:"error,omitempty"`
	Definitions     []Definition `json:"definitions,omitempty"`
	// Summary and RiskLevel answer op summary.
	Summary   *string `json:"summary,omitempty"`
	RiskLevel string  `json:"risk_level,omitempty"`
	// Screen answers op screen.
	Screen *Screen `json:"screen,omitempty"`
}

// Policy keys and their values (spec/PROTOCOL.md, "Policies").
const (
	// PolicyLP1MissingFile is LP1's "backend policy" for a file that does
	// not exist (I-AP-01): PolicyCreate lets T and B create it without a
	// read; PolicyRefuse answers StaleFile "File was not read before
	// patching" for every file not read in the conversation, missing or
	// not.
	PolicyLP1MissingFile = "lp1_missing_file"
	PolicyCreate         = "create"
	PolicyRefuse         = "refuse"
	// PolicySFBackendBinaries is how search_files finds the rg and ugrep
	// binaries of its external backends (CFG-SF-03, I-SF-24):
	// PolicyPath, by the PATH of the implementation's process. An
	// implementation that bundles them, configures their path another
	// way, or has no external backend does not declare the key.
	PolicySFBackendBinaries = "sf_backend_binaries"
	PolicyPath              = "path"
)

// PolicyValues lists each known policy key's values.
func PolicyValues() map[string][]string {
	return map[string][]string{PolicyLP1MissingFile: {PolicyCreate, PolicyRefuse}, PolicySFBackendBinaries: {PolicyPath}}
}

// Implementation identifies the implementation under test.
type Implementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
}

// Error is a ToolError on the wire.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Tool and File are the ToolError variant fields that name a tool
	// (Timeout, ExecutionFailed, UnknownTool, DuplicateTool) or a file
	// (PatchFailed, StaleFile); optional on the wire.
	Tool   string  `json:"tool,omitempty"`
	File   string  `json:"file,omitempty"`
	Denial *Denial `json:"denial,omitempty"`
}

// Denial is a DenialReason on the wire.
type Denial struct {
	Reason    string `json:"reason"`
	Tool      string `json:"tool,omitempty"`
	Attempted string `json:"attempted,omitempty"`
	Resolved  string `json:"resolved,omitempty"`
	Pattern   string `json:"pattern,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Definition is one tool definition of the registry (op "definitions"),
// with the ToolExecutor trait's metadata.
type Definition struct {
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	SideEffecting    bool            `json:"side_effecting"`
	RequiresApproval bool            `json:"requires_approval"`
	RiskLevel        string          `json:"risk_level"`
}

// Bool returns a pointer to b, for Response.OK and AllowTruncation.
func Bool(b bool) *bool { return &b }
