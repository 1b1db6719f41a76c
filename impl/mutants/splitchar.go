package mutants

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/forge-conform/forge-conform/impl/lossy"
	"github.com/forge-conform/forge-conform/impl/tool"
)

// splitCharMutants break FR-OUT-02's printable text for a character whose
// bytes a command writes in two reads: each chunk is decoded as UTF-8 on
// its own, so the character's halves become replacement characters.
func splitCharMutants() []Mutant {
	return []Mutant{
		{
			Name: "chunk-decoded-alone", Doc: "run_command decodes each streamed chunk as UTF-8 on its own: a character split across two reads becomes two U+FFFD",
			Specs: []string{"tool_executor"}, Run: []string{"tool_executor/turn-command-*"},
			Breaks:  ids("tool_executor", "FR-OUT-02"),
			Options: wrap(onCommand(decodeChunksAlone)),
		},
	}
}

// decodeChunksAlone runs run_command with every output chunk replaced by
// its lossy UTF-8 decoding before the executor sees it.
func decodeChunksAlone(inner execFunc, ctx context.Context, args json.RawMessage, c *tool.Ctx) (string, error) {
	if c.Output == nil {
		return inner(ctx, args, c)
	}
	out := c.Output
	in := make(chan tool.Chunk)
	cc := *c
	cc.Output = in
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ch := range in {
			ch.Text = lossy.String(ch.Text)
			select {
			case out <- ch:
			case <-ctx.Done():
			}
		}
	}()
	res, err := inner(ctx, args, &cc)
	close(in)
	wg.Wait()
	c.AllowTruncation = cc.AllowTruncation
	return res, err
}
