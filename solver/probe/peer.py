"""Talking to an implementation started as a child process, over JSON Lines or plain
lines, with every fault of the peer turned into a record, never an exception.

:meth:`ChildPeer.ask` sends numbered questions (:class:`~solver.probe.faults.Question`)
and yields the answers in lists, as they come, keeping up to ``window`` questions in
flight. Faults are counted in :class:`~solver.probe.faults.Faults`:

- a peer that exits or closes its stdout is restarted (``restarts`` times at most);
  the questions in flight are asked again one at a time, so the question that brings
  it down again is named (``crashes``) and skipped;
- a question that gets no answer within ``timeout_ms`` (measured from when it was sent
  or from the last answer, whichever is later) kills the peer; it is asked again alone,
  and if it times out alone it is named (``timeouts``) and skipped;
- a line that is not a JSON object with an ``id`` (``garbage``), an id never asked
  (``unknown_ids``), an id answered before (``duplicates``): counted, the first few
  shown, the line ignored; a question still unanswered at its timeout after a garbage
  line is taken to have been answered by it (``unreadable``: named, no restart);
- a peer that cannot be started, or that exits or hangs twice before answering
  anything, ends the run (``fatal``) with what it printed last on stderr.

The child gets only its own stdin, stdout and stderr (no other descriptors); stderr is
drained by a thread and only its last few KiB kept, so a flood cannot block it. Stdin
is written by a thread, so a peer that stops reading blocks that thread, never the
probe. An answer whose line starts ``{"id": N`` is taken without parsing the rest: the
claims reader of ``bull verify`` reads it (a broken line is reported there as
malformed).
"""

from __future__ import annotations

import contextlib
import json
import queue
import re
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice, repeat
from operator import itemgetter
from typing import cast

from solver.probe.faults import Answer, Faults, Question, answers
from solver.probe.wire import answer_ids

__all__ = ["ChildPeer", "Peer", "Seen", "answer_id"]

_STDERR_TAIL = 4096
_ID = re.compile(rb'\s*\{\s*"id"\s*:\s*(\d{1,18})\s*[,}]')
_ID_OF = itemgetter(0)
"""A question's id."""


def _request(q: Question) -> bytes:
    """``q``'s JSON Lines request (no newline)."""
    return f'{{"id":{q.id},{q.fields}}}'.encode()


class Peer:
    """The shared part of the transports: :meth:`ask` yields the answers in lists."""

    faults: Faults
    sent = 0
    """Questions sent (each counted once, however often it is asked again)."""

    def ask(self, questions: Iterable[Question]) -> Iterator[list[Answer]]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the peer."""


class Seen:
    """The ids answered: a bitmap (ids are small and dense)."""

    def __init__(self) -> None:
        self.bits = bytearray(1 << 16)

    def reserve(self, i: int) -> None:
        """Room for ids up to ``i``."""
        if i >= len(self.bits):
            self.bits.extend(bytes(max(i + 1, 2 * len(self.bits)) - len(self.bits)))

    def add(self, i: int) -> None:
        self.reserve(i)
        self.bits[i] = 1

    def __contains__(self, i: int) -> bool:
        return 0 <= i < len(self.bits) and self.bits[i] == 1


def answer_id(line: bytes) -> tuple[int | None, str]:
    """The id of an answer line, or ``None`` and why it cannot be read.

    >>> answer_id(b'{"id": 17, "points": 7}')
    (17, '')
    >>> answer_id(b'{"points": 7, "id": "18"}')
    (18, '')
    >>> answer_id(b'oops')
    (None, 'not JSON')
    """
    m = _ID.match(line)
    if m:
        return int(m.group(1)), ""
    try:
        obj = json.loads(line)
    except ValueError:
        return None, "not JSON"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    qid = obj.get("id")
    if isinstance(qid, int) and not isinstance(qid, bool):
        return qid, ""
    if isinstance(qid, str) and qid.strip().isdigit():
        return int(qid), ""
    return None, "no numeric id"


class ChildPeer(Peer):
    """An implementation started as a child process (see the module docstring).
    ``protocol``: ``jsonl`` or ``lines``."""

    def __init__(
        self,
        command: Sequence[str],
        protocol: str = "jsonl",
        window: int = 4096,
        timeout_ms: int = 5000,
        restarts: int = 5,
    ) -> None:
        self.command = list(command)
        self.protocol = protocol
        self.window = max(1, window)
        self.timeout = timeout_ms / 1000
        self.timeout_ms = timeout_ms
        self.max_restarts = restarts
        self.faults = Faults()
        self.proc: subprocess.Popen[bytes] | None = None
        self.answered_any = False
        self.answered = Seen()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._lines: queue.Queue[tuple[int, list[bytes], bool]] = queue.Queue()
        self._gen = 0
        self._alone: int | None = None
        """The question asked alone after a fault (the one that fails alone is named)."""
        self._dead_starts = 0
        self._blamed = 0
        """Garbage lines taken as the answer of a question that got no other."""
        self._writer: _Writer | None = None

    # -- the process
    def _start(self) -> bool:
        self._gen += 1
        gen = self._gen
        try:
            proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                close_fds=True,
                bufsize=0,
            )
        except OSError as e:
            self.faults.fatal = f"cannot start {' '.join(self.command)!r}: {e.strerror or e}"
            return False
        self.proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout, proc.stderr

        def read_out() -> None:
            buf = b""
            while True:
                try:
                    chunk = out.read(1 << 16)
                except (OSError, ValueError):
                    chunk = b""
                if not chunk:
                    self._lines.put((gen, [buf] if buf.strip() else [], True))
                    return
                buf += chunk
                parts = buf.split(b"\n")
                buf = parts.pop()
                self._lines.put((gen, parts, False))

        def read_err() -> None:
            while True:
                try:
                    chunk = err.read(1 << 14)
                except (OSError, ValueError):
                    return
                if not chunk:
                    return
                self._stderr.append(chunk)
                self._stderr_size += len(chunk)
                while self._stderr_size > _STDERR_TAIL and len(self._stderr) > 1:
                    self._stderr_size -= len(self._stderr.popleft())

        threading.Thread(target=read_out, daemon=True).start()
        threading.Thread(target=read_err, daemon=True).start()
        self._writer = _Writer(proc)
        return True

    def stderr_tail(self) -> str:
        """The last line the peer wrote on stderr (at most 200 characters)."""
        text = b"".join(self._stderr).decode("utf-8", "replace").strip()
        last = text.splitlines()[-1] if text else ""
        return last[-200:]

    def _stop(self) -> str:
        """Stop the process; how it ended (exit code, last stderr line)."""
        proc, self.proc = self.proc, None
        if self._writer is not None:
            self._writer.put(None)
            self._writer = None
        if proc is None:
            return "not running"
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            code = proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        for s in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if s is not None:
                    s.close()
        time.sleep(0.01)  # the stderr thread takes the last words
        said = self.stderr_tail()
        how = f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
        return how + (f"; stderr: {said}" if said else "")

    def close(self) -> None:
        if self.proc is not None:
            self._stop()

    def _send(self, qs: Sequence[Question]) -> None:
        if self._writer is None:
            return
        if self.protocol == "lines":
            data = "".join([q.line + "\n" for q in qs]).encode()
        else:
            data = b"\n".join([q.wire or _request(q) for q in qs]) + b"\n"
        self._writer.put(data)

    # -- asking
    def ask(self, questions: Iterable[Question]) -> Iterator[list[Answer]]:
        """Ask every question; yield the answers in lists, in the order they come."""
        it = iter(questions)
        retry: deque[Question] = deque()  # asked again alone after a fault
        inflight: dict[int, Question] = {}
        order: deque[tuple[int, float]] = deque()  # in flight: (id, sent), oldest first
        exhausted = False
        last = time.monotonic()
        block = max(1, min(self.window // 4, 1024))
        if self.proc is None and not self._start():
            return
        try:
            while True:
                now = time.monotonic()
                if self._alone is None:
                    if retry:  # after a fault: one question at a time
                        q = retry.popleft()
                        self._alone = q.id
                        self.answered.reserve(q.id)
                        inflight[q.id] = q
                        order.append((q.id, now))
                        self._send([q])
                    elif not exhausted and (not inflight or self.window - len(inflight) >= block):
                        batch = list(islice(it, self.window - len(inflight)))
                        if not batch:
                            exhausted = True
                        ids = list(map(_ID_OF, batch))
                        inflight.update(zip(ids, batch, strict=True))
                        order.extend(zip(ids, repeat(now)))
                        if batch:
                            self.sent += len(batch)
                            self.answered.reserve(max(ids))
                        self._send(batch)
                if not inflight:
                    if exhausted and not retry:
                        return
                    continue
                while order[0][0] not in inflight:
                    order.popleft()
                deadline = max(order[0][1], last) + self.timeout
                try:
                    gen, lines, eof = self._lines.get(timeout=max(0.0, deadline - now))
                except queue.Empty:
                    oldest = inflight[order[0][0]]
                    if self.faults.garbage > self._blamed:  # its answer was the garbage line
                        self._blamed += 1
                        del inflight[oldest.id]
                        if self._alone == oldest.id:  # else nothing more is ever sent
                            self._alone = None
                        self.faults.unreadable.append({"id": oldest.id, "question": oldest.shown})
                        last = time.monotonic()
                        continue
                    if not self._fault(oldest, inflight, order, retry, "timeout"):
                        return
                    last = time.monotonic()
                    continue
                if gen != self._gen:
                    continue  # lines of a process stopped already
                last = time.monotonic()
                got = self._take(lines, inflight, order)
                if got:
                    self.answered_any = True
                    if self._alone is not None and self._alone not in inflight:
                        self._alone = None
                    yield got
                if eof:
                    while order and order[0][0] not in inflight:
                        order.popleft()
                    if not order:  # closed after its last answer: started again when asked
                        self._stop()
                        if not (exhausted and not retry) and not self._start():
                            return
                        continue
                    if not self._fault(inflight[order[0][0]], inflight, order, retry, "crash"):
                        return
                    last = time.monotonic()
        except KeyboardInterrupt:
            self.faults.interrupted = True

    def _take(
        self, lines: list[bytes], inflight: dict[int, Question], order: deque[tuple[int, float]]
    ) -> list[Answer]:
        """The answers in ``lines`` (taken out of ``inflight``)."""
        f, seen, out = self.faults, self.answered, []
        if self.protocol == "lines":
            for line in lines:
                if not line.strip():
                    continue
                while order and order[0][0] not in inflight:
                    order.popleft()
                if not order:
                    f.unknown_ids += 1
                    continue
                q = inflight.pop(order.popleft()[0])
                seen.add(q.id)  # in order: the oldest question's answer
                text = line.decode("utf-8", "replace").strip()
                out.append(Answer(q, values=tuple(v.strip() for v in text.split(","))))
            return out
        pop, bits, app = inflight.pop, seen.bits, out.append
        ids = answer_ids(lines)
        if ids is not None:  # every line written {"id":N,...: read at once
            return self._take_ids(ids, lines, inflight)
        for line in lines:
            qid: int | None = None
            if line[:6] == b'{"id":':  # the common spelling, read without parsing
                j = line.find(b",", 6)
                with contextlib.suppress(ValueError):
                    qid = int(line[6 : j if j > 0 else line.find(b"}", 6)])
            if qid is None:
                if not line.strip():
                    continue
                qid, problem = answer_id(line)
                if qid is None:
                    f.bad_line(line.decode("utf-8", "replace").strip() + f" ({problem})")
                    continue
            got: Question | None = pop(qid, None)
            if got is None:
                if qid in seen:
                    f.duplicates += 1
                else:
                    f.unknown_ids += 1
                continue
            bits[qid] = 1  # reserved when asked
            app(Answer(got, line))
        return out

    def _take_ids(
        self, ids: list[int], lines: list[bytes], inflight: dict[int, Question]
    ) -> list[Answer]:
        """The answers in ``lines``, whose ids are ``ids``."""
        got: list[Question | None] = list(map(inflight.pop, ids, repeat(None)))
        bits = self.answered.bits
        if None not in got:
            for qid in ids:
                bits[qid] = 1  # reserved when asked
            return answers(cast("list[Question]", got), lines)
        out = []
        for qid, q, line in zip(ids, got, lines, strict=True):
            if q is not None:
                bits[qid] = 1
                out.append(Answer(q, line))
            elif qid in self.answered:
                self.faults.duplicates += 1
            else:
                self.faults.unknown_ids += 1
        return out

    def _fault(
        self,
        q: Question,
        inflight: dict[int, Question],
        order: deque[tuple[int, float]],
        retry: deque[Question],
        kind: str,
    ) -> bool:
        """The peer crashed or timed out with ``inflight`` unanswered; ``q`` the oldest.
        Name ``q`` when it was asked alone; ask the rest again alone; restart. False
        when the run must end."""
        how = self._stop()
        if not self.answered_any:
            self._dead_starts += 1
            if self._dead_starts >= 2:
                what = "exited" if kind == "crash" else f"hung ({self.timeout_ms} ms)"
                self.faults.fatal = f"the implementation {what} before answering anything ({how})"
                return False
        alone = self._alone == q.id
        if alone:
            rec = {"id": q.id, "question": q.shown}
            if kind == "crash":
                self.faults.crashes.append({**rec, "message": how})
            else:
                self.faults.timeouts.append({**rec, "ms": self.timeout_ms})
            inflight.pop(q.id)
        self._alone = None
        retry.extendleft(reversed([x for _, x in sorted(inflight.items())]))
        inflight.clear()
        order.clear()
        if self.faults.restarts >= self.max_restarts:
            self.faults.fatal = (
                f"the implementation failed again after {self.faults.restarts} restart(s) "
                f"({kind}: {how}); --restarts N allows more"
            )
            return False
        self.faults.restarts += 1
        return self._start()


class _Writer:
    """Writes request blocks to a child's stdin from a thread."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.q: queue.Queue[bytes | None] = queue.Queue()

        def run() -> None:
            stdin = proc.stdin
            while True:
                data = self.q.get()
                if data is None or stdin is None:
                    return
                try:
                    stdin.write(data)
                except (OSError, ValueError):
                    return

        threading.Thread(target=run, daemon=True).start()

    def put(self, data: bytes | None) -> None:
        self.q.put(data)
