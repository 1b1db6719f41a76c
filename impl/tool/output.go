package tool

import "context"

// Stream names an output stream of a streaming tool.
type Stream string

// The streams (ToolEvent::StdoutChunk, ToolEvent::StderrChunk).
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// Chunk is one piece of streamed output, raw: the framework sanitizes it.
type Chunk struct {
	Stream Stream
	Text   string
}

// Send delivers a chunk on c.Output, waiting for room when the channel is
// full (FR-OUT-01: bounded, never dropped). It returns false, without
// sending, once ctx is done (the call was aborted or timed out). A nil c
// or Output discards the chunk and returns true.
func (c *Ctx) Send(ctx context.Context, stream Stream, text string) bool {
	if c == nil || c.Output == nil || text == "" {
		return ctx.Err() == nil
	}
	if ctx.Err() != nil {
		return false
	}
	select {
	case c.Output <- Chunk{Stream: stream, Text: text}:
		return true
	case <-ctx.Done():
		return false
	}
}
