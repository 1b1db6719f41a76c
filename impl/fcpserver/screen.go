package fcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/forge-conform/forge-conform/impl/tui"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Screener is implemented by turn handlers that show their turns on a
// screen (the screen op, spec/PROTOCOL.md §11). TurnScreen returns the
// screen of the turn seq, about to start; the server feeds it every line
// the turn writes and every user request it accepts, and renders it for
// screen requests, all under its output lock, so that a screen shows
// exactly the lines written before its response.
type Screener interface {
	TurnScreen(seq int64) *tui.TurnScreen
}

// screen answers a screen request; it writes its response itself.
func (m *turnManager) screen(line []byte, seq int64) {
	var req fcp.ScreenRequest
	if err := json.Unmarshal(line, &req); err != nil {
		_ = m.lw.write(failure(seq, "screen request is not valid: %s", describeDecodeError(err)))
		return
	}
	if msg := checkScreen(req); msg != "" {
		_ = m.lw.write(failure(seq, "%s", msg))
		return
	}
	_ = m.lw.writeWith(func() any {
		m.mu.Lock()
		sc := m.lastScreen
		m.mu.Unlock()
		switch {
		case sc == nil:
			return failure(seq, "screen: no turn has run yet; ask for a screen while a turn runs or after it ended")
		case req.Turn != nil && *req.Turn != sc.Seq():
			return failure(seq, "screen: turn %d is neither running nor the last one (that is seq %d)", *req.Turn, sc.Seq())
		}
		s := sc.Render(req.Width, req.Height)
		return fcp.Response{Seq: seq, OK: fcp.Bool(true), Screen: &s}
	})
}

// checkScreen reports what is wrong with a screen request's size.
func checkScreen(r fcp.ScreenRequest) string {
	if r.Width < fcp.MinScreenWidth || r.Width > fcp.MaxScreenWidth {
		return fmt.Sprintf("screen: width %d is outside %d..%d", r.Width, fcp.MinScreenWidth, fcp.MaxScreenWidth)
	}
	if r.Height < fcp.MinScreenHeight || r.Height > fcp.MaxScreenHeight {
		return fmt.Sprintf("screen: height %d is outside %d..%d", r.Height, fcp.MinScreenHeight, fcp.MaxScreenHeight)
	}
	return ""
}
