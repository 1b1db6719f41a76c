package fcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/forge-conform/forge-conform/conformance/turnlog"
	"github.com/forge-conform/forge-conform/spec/fcp"
)

// Turn runs one turn (spec/PROTOCOL.md §9), or a recover when req.Op is
// fcp.OpRecover (§10.3, which runs like a turn): it sends req with the session's
// next seq, reads the turn's lines until its final response (the turn's
// seq, no event), validating each against the turn-output schema, and shows
// every event and the final response to user, whose requests (decide,
// cancel, tool_result, screen) it sends
// at once with seqs of their own and turn set to the turn's seq. Their
// answers are read between the events. It returns the log of everything
// that happened; on a protocol error (or when ctx ends first: a hostile
// implementation that never finishes its turn) the session is dead, as for
// Do, and the log holds what was read until then.
func (s *Session) Turn(ctx context.Context, req fcp.TurnRequest, user turnlog.User) (*turnlog.Log, error) {
	return s.TurnInto(ctx, req, user, &turnlog.Log{})
}

// TurnInto is Turn recording into log, which it returns (a log with
// CountChunks set keeps no chunk text).
func (s *Session) TurnInto(ctx context.Context, req fcp.TurnRequest, user turnlog.User, log *turnlog.Log) (*turnlog.Log, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return log, fmt.Errorf("%w (%v)", ErrDead, s.dead)
	}
	req.FCP = fcp.Version
	if req.Op != fcp.OpRecover { // recover runs like a turn (PROTOCOL.md §10.3)
		req.Op = fcp.OpTurn
	}
	req.Seq = s.seq
	s.seq++
	next := func() int64 { n := s.seq; s.seq++; return n }

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.life, cancel)
	defer stop()

	err := s.p.turn(ctx, req, user, log, next)
	if errors.Is(err, errEncode) {
		return log, err
	}
	if err != nil {
		if s.life.Err() != nil {
			err = fmt.Errorf("%w (closed while turn seq %d ran)", ErrDead, req.Seq)
		}
		s.dead = err
		s.p.finish(0)
		return log, s.p.withStderr(err)
	}
	return log, nil
}

func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// turn drives one turn on the process.
func (p *proc) turn(ctx context.Context, req fcp.TurnRequest, user turnlog.User, log *turnlog.Log, next func() int64) error {
	line, err := encodeLine(req)
	if err != nil {
		return fmt.Errorf("%w seq %d: %v; fix the case's request", errEncode, req.Seq, err)
	}
	start := time.Now()
	if err := p.send(ctx, line); err != nil {
		return p.sendError(ctx, err, req.Seq, start)
	}
	outstanding := map[int64]fcp.TurnRequest{}
	lastEvent := "none"
	finished := false // the final response is read; answers may still be due
	// show shows user a line and sends the requests it returns.
	show := func(tl fcp.TurnLine) error {
		if user == nil {
			return nil
		}
		for _, r := range user(tl) {
			r.FCP, r.Seq = fcp.Version, next()
			if r.Turn == nil {
				t := req.Seq
				r.Turn = &t
			}
			line, err := encodeLine(r)
			if err != nil {
				return fmt.Errorf("%w seq %d: %v", errEncode, r.Seq, err)
			}
			if err := p.send(ctx, line); err != nil {
				return p.sendError(ctx, err, r.Seq, start)
			}
			sent := r
			outstanding[r.Seq] = sent
			log.Add(turnlog.Entry{Kind: turnlog.Sent, Req: &sent})
		}
		return nil
	}
	for {
		m, err := p.next(ctx)
		switch {
		case errors.Is(err, errExited):
			return p.crashError(req.Seq, fmt.Sprintf("exited during turn seq %d while a descendant holds its stdout open", req.Seq))
		case err != nil:
			verb := "timed out"
			if !errors.Is(err, context.DeadlineExceeded) {
				verb = "cancelled"
			}
			return &ProtocolError{Kind: KindTimeout, Seq: req.Seq, Detail: fmt.Sprintf(
				"%s after %s waiting for the end of turn seq %d (last event read: %s; %d requests unanswered)",
				verb, time.Since(start).Round(time.Millisecond), req.Seq, lastEvent, len(outstanding))}
		}
		switch {
		case errors.Is(m.err, errFlood):
			return &ProtocolError{Kind: KindFlood, Seq: req.Seq, Detail: fmt.Sprintf(
				"a line of turn seq %d exceeds %d bytes", req.Seq, p.o.MaxLineBytes)}
		case m.err != nil:
			return p.crashError(req.Seq, fmt.Sprintf("stdout ended during turn seq %d (%v)", req.Seq, m.err))
		}
		garbage := func(format string, args ...any) error {
			return &ProtocolError{Kind: KindGarbage, Seq: req.Seq, Detail: fmt.Sprintf(format, args...)}
		}
		trimmed := bytes.TrimSpace(m.line)
		if !utf8.Valid(m.line) {
			return garbage("a line of turn seq %d is not valid UTF-8 (byte offset %d): %s", req.Seq, badUTF8(m.line), quote(m.line))
		}
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return garbage("a line of turn seq %d is not a JSON object: %s", req.Seq, quote(m.line))
		}
		// Streamed output is nearly all chunk lines: those in the common
		// layout are read (and checked against the schema's rule for them)
		// in one pass.
		if seq, event, id, chunk, ok := chunkLine(trimmed); ok && !finished && seq == req.Seq {
			tl := fcp.TurnLine{Seq: seq, Event: event, ID: id, Chunk: chunk}
			lastEvent = tl.Event
			log.Add(turnlog.Entry{Kind: turnlog.Event, Line: &tl})
			if err := show(tl); err != nil {
				return err
			}
			continue
		}
		// One decoding pass reads the seq and the turn line and checks the
		// syntax of the whole line (chunk lines are long and many); a
		// line of the wrong type is reported once its seq says it is a
		// turn line.
		var head struct {
			Seq *int64 `json:"seq"`
			fcp.TurnLine
		}
		decodeErr := json.Unmarshal(trimmed, &head)
		if _, bad := decodeErr.(*json.SyntaxError); bad {
			return garbage("a line of turn seq %d is not a JSON object: %s", req.Seq, quote(m.line))
		}
		var seqErr *json.UnmarshalTypeError
		if errors.As(decodeErr, &seqErr) && seqErr.Field == "seq" {
			head.Seq = nil
		}
		if head.Seq == nil {
			return &ProtocolError{Kind: KindInvalid, Seq: req.Seq, Detail: fmt.Sprintf(
				"a line of turn seq %d has no integer seq: %s", req.Seq, quote(m.line))}
		}
		if sent, ok := outstanding[*head.Seq]; ok {
			if p.o.Validator != nil {
				if err := p.o.Validator.ValidateResponse(sent.Op, trimmed); err != nil {
					return &ProtocolError{Kind: KindInvalid, Seq: sent.Seq, Detail: fmt.Sprintf("answer to %s seq %d: %v", sent.Op, sent.Seq, err)}
				}
			}
			var resp fcp.Response
			if err := json.Unmarshal(trimmed, &resp); err != nil {
				return &ProtocolError{Kind: KindInvalid, Seq: sent.Seq, Detail: fmt.Sprintf("answer to %s seq %d does not decode: %v", sent.Op, sent.Seq, err)}
			}
			delete(outstanding, *head.Seq)
			log.Add(turnlog.Entry{Kind: turnlog.Answer, Req: &sent, Resp: &resp})
			if finished && len(outstanding) == 0 {
				return nil
			}
			continue
		}
		if finished || *head.Seq != req.Seq {
			return &ProtocolError{Kind: KindWrongSeq, Seq: req.Seq, Detail: fmt.Sprintf(
				"got a line with seq %d during turn seq %d (neither the turn's seq nor an unanswered request's, or a turn line after the final response)", *head.Seq, req.Seq)}
		}
		if p.o.Validator != nil {
			if err := p.o.Validator.ValidateTurnOutput(trimmed); err != nil {
				return &ProtocolError{Kind: KindInvalid, Seq: req.Seq, Detail: fmt.Sprintf("turn seq %d: %v", req.Seq, err)}
			}
		}
		if decodeErr != nil {
			return &ProtocolError{Kind: KindInvalid, Seq: req.Seq, Detail: fmt.Sprintf("a line of turn seq %d does not decode: %v", req.Seq, decodeErr)}
		}
		tl := head.TurnLine
		tl.Seq = *head.Seq
		if tl.Event == "" {
			log.Add(turnlog.Entry{Kind: turnlog.Final, Line: &tl})
			if err := show(tl); err != nil {
				return err
			}
			if len(outstanding) == 0 {
				return nil
			}
			// A request that crossed the final response on the wire is
			// answered after it (with an error: no turn runs), a screen
			// asked after it with the turn's last screen.
			finished = true
			continue
		}
		lastEvent = tl.Event
		log.Add(turnlog.Entry{Kind: turnlog.Event, Line: &tl})
		if err := show(tl); err != nil {
			return err
		}
	}
}
