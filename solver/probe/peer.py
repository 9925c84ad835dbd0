"""Talking to an implementation: a child process over JSON Lines or plain lines, or a
service over HTTP, with every fault of the peer turned into a record, never an
exception.

A :class:`Peer` asks numbered questions (:class:`Question`: the request's payload
fields as JSON text, or the plain line) and yields :class:`Answer` objects — the
answer's JSON object as text, with the id it belongs to — while it keeps up to
``window`` questions in flight. Faults are counted in :class:`Faults`:

- a peer that exits or closes its stdout is restarted (``restarts`` times at most);
  the questions in flight are asked again one at a time, so the question that brings
  it down again is named (``crashes``) and skipped;
- a question that gets no answer within ``timeout_ms`` (measured from when it was sent
  or from the last answer, whichever is later) kills the peer; it is asked again alone,
  and if it times out alone it is named (``timeouts``) and skipped;
- a line that is not a JSON object with an ``id`` (``garbage``), an id never asked
  (``unknown_ids``), an id answered before (``duplicates``): counted, the first few
  shown, the line ignored;
- a peer that cannot be started, or that exits before answering anything, ends the run
  (``fatal``) with what it printed on stderr.

The child gets only its own stdin, stdout and stderr (no other descriptors); stderr is
drained by a thread and only its last few KiB kept, so a flood cannot block it.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_SHOWN",
    "Answer",
    "ChildPeer",
    "Faults",
    "HttpPeer",
    "Peer",
    "Question",
]

MAX_SHOWN = 5
"""Examples kept of each kind of fault."""
_STDERR_TAIL = 4096
_EOF = b""


@dataclass(frozen=True)
class Question:
    """One question: its ``id``, its JSON fields without braces (``"hand":[...]``), the
    plain line (``--protocol lines``) and what it shows in a fault report."""

    id: int
    fields: str
    line: str
    shown: str


@dataclass(frozen=True)
class Answer:
    """The answer to question ``id``: its JSON object, as text (JSON Lines and HTTP) or
    its values split from the CSV line (``--protocol lines``)."""

    id: int
    text: str = ""
    values: tuple[str, ...] = ()


@dataclass
class Faults:
    """What went wrong with the peer, counted, with the first few examples."""

    crashes: list[dict[str, Any]] = field(default_factory=list)
    timeouts: list[dict[str, Any]] = field(default_factory=list)
    garbage: int = 0
    garbage_lines: list[str] = field(default_factory=list)
    unknown_ids: int = 0
    duplicates: int = 0
    restarts: int = 0
    fatal: str | None = None
    interrupted: bool = False
    examples: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        if len(self.examples) < MAX_SHOWN * 3:
            self.examples.append(message)

    @property
    def any(self) -> bool:
        return bool(
            self.crashes
            or self.timeouts
            or self.garbage
            or self.unknown_ids
            or self.duplicates
            or self.fatal
            or self.interrupted
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "crashes": self.crashes,
            "timeouts": self.timeouts,
            "garbage": self.garbage,
            "garbage_lines": self.garbage_lines,
            "unknown_ids": self.unknown_ids,
            "duplicates": self.duplicates,
            "restarts": self.restarts,
            "fatal": self.fatal,
            "interrupted": self.interrupted,
            "messages": self.examples,
        }

    def lines(self) -> list[str]:
        """One line per kind of fault seen."""
        out = []
        if self.fatal:
            out.append(f"peer failed: {self.fatal}")
        for c in self.crashes[:MAX_SHOWN]:
            out.append(f"crash on {c['question']}: {c['message']}")
        if len(self.crashes) > MAX_SHOWN:
            out.append(f"... {len(self.crashes) - MAX_SHOWN} more crashes")
        for t in self.timeouts[:MAX_SHOWN]:
            out.append(f"timeout on {t['question']}: no answer in {t['ms']} ms")
        if len(self.timeouts) > MAX_SHOWN:
            out.append(f"... {len(self.timeouts) - MAX_SHOWN} more timeouts")
        if self.garbage:
            shown = "; ".join(repr(g) for g in self.garbage_lines[:2])
            out.append(f"{self.garbage} unreadable answer line(s), e.g. {shown}")
        if self.unknown_ids:
            out.append(f"{self.unknown_ids} answer(s) to an id never asked (ignored)")
        if self.duplicates:
            out.append(f"{self.duplicates} id(s) answered twice (the first answer kept)")
        if self.restarts:
            out.append(f"peer restarted {self.restarts} time(s)")
        if self.interrupted:
            out.append("interrupted: the report covers the questions answered so far")
        return out


class Peer:
    """The shared part of the transports: :meth:`ask` yields the answers."""

    faults: Faults

    def ask(self, questions: Iterable[Question]) -> Iterator[Answer]:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the peer."""


def _parse_json_answer(line: bytes) -> tuple[int | None, str, str]:
    """``(id, object text, problem)`` of an answer line."""
    text = line.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        return None, text, "not JSON"
    if not isinstance(obj, dict):
        return None, text, "not a JSON object"
    qid = obj.get("id")
    if isinstance(qid, bool) or not isinstance(qid, (int, str)):
        return None, text, "no id"
    try:
        return int(qid), text, ""
    except ValueError:
        return None, text, "id is not a number"


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
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._lines: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self._gen = 0
        self._alone: set[int] = set()
        self._dead_starts = 0
        """Questions asked alone after a fault (the one that fails alone is named)."""

    # -- the process
    def _start(self) -> bool:
        self._gen += 1
        gen = self._gen
        try:
            self.proc = subprocess.Popen(
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
        proc = self.proc
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
                    if buf:
                        self._lines.put((gen, buf))
                    self._lines.put((gen, _EOF))
                    return
                buf += chunk
                parts = buf.split(b"\n")
                buf = parts.pop()
                for p in parts:
                    if p.strip():
                        self._lines.put((gen, p + b"\n"))

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
        return True

    def stderr_tail(self) -> str:
        text = b"".join(self._stderr).decode("utf-8", "replace").strip()
        last = text.splitlines()[-1] if text else ""
        return last[-200:]

    def _stop(self) -> str:
        """Kill the process; what it said about it (exit code, last stderr line)."""
        proc, self.proc = self.proc, None
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
        time.sleep(0.01)  # let the stderr thread take the last words
        said = self.stderr_tail()
        how = f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
        return how + (f"; stderr: {said}" if said else "")

    def close(self) -> None:
        if self.proc is not None:
            self._stop()

    def _request(self, q: Question) -> bytes:
        if self.protocol == "lines":
            return (q.line + "\n").encode()
        return f'{{"id":{q.id},{q.fields}}}\n'.encode()

    # -- asking
    def ask(self, questions: Iterable[Question]) -> Iterator[Answer]:
        """Ask every question; yield the answers (in the order they come)."""
        it = iter(questions)
        retry: deque[Question] = deque()  # asked again alone after a fault
        inflight: dict[int, Question] = {}
        order: deque[int] = deque()  # in-flight ids, oldest first
        sent_at: dict[int, float] = {}
        answered: set[int] = set()
        exhausted = False
        last = time.monotonic()
        if self.proc is None and not self._start():
            return
        writer = _Writer(self)
        try:
            while True:
                batch: list[bytes] = []
                now = time.monotonic()
                while not (self._alone & inflight.keys()):
                    if retry:  # after a fault: one question at a time
                        q = retry.popleft()
                        self._alone.add(q.id)
                    elif exhausted or len(inflight) >= self.window:
                        break
                    else:
                        nq = next(it, None)
                        if nq is None:
                            exhausted = True
                            break
                        q = nq
                    inflight[q.id] = q
                    order.append(q.id)
                    sent_at[q.id] = now
                    batch.append(self._request(q))
                    if len(batch) >= 512:
                        writer.put(b"".join(batch))
                        batch = []
                if batch:
                    writer.put(b"".join(batch))
                if not inflight:
                    if exhausted and not retry:
                        return
                    continue
                while order and order[0] not in inflight:
                    order.popleft()
                oldest = order[0]
                deadline = max(sent_at[oldest], last) + self.timeout
                try:
                    gen, line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    q = inflight[oldest]
                    writer.put(None)
                    if not self._fault(q, inflight, order, retry, "timeout"):
                        return
                    writer = _Writer(self)
                    last = time.monotonic()
                    continue
                if gen != self._gen:
                    continue  # a line of a process stopped already
                if line == _EOF:
                    q = inflight[oldest]
                    writer.put(None)
                    if not self._fault(q, inflight, order, retry, "crash"):
                        return
                    writer = _Writer(self)
                    last = time.monotonic()
                    continue
                last = time.monotonic()
                for ans in self._answers(line, inflight, answered):
                    inflight.pop(ans.id, None)
                    sent_at.pop(ans.id, None)
                    self._alone.discard(ans.id)
                    answered.add(ans.id)
                    self.answered_any = True
                    yield ans
        except KeyboardInterrupt:
            self.faults.interrupted = True
        finally:
            writer.put(None)
            self.close()

    def _answers(
        self, line: bytes, inflight: dict[int, Question], answered: set[int]
    ) -> list[Answer]:
        f = self.faults
        if self.protocol == "lines":
            if not inflight:
                f.unknown_ids += 1
                return []
            first = next(iter(inflight))  # answers come in order
            text = line.decode("utf-8", "replace").strip()
            return [Answer(first, values=tuple(v.strip() for v in text.split(",")))]
        qid, text, problem = _parse_json_answer(line)
        if qid is None:
            f.garbage += 1
            if len(f.garbage_lines) < MAX_SHOWN:
                f.garbage_lines.append(text[:120] + (f" ({problem})" if problem else ""))
            return []
        if qid in answered:
            f.duplicates += 1
            return []
        if qid not in inflight:
            f.unknown_ids += 1
            return []
        return [Answer(qid, text)]

    def _fault(
        self,
        q: Question,
        inflight: dict[int, Question],
        order: deque[int],
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
        alone = q.id in self._alone
        rest = [x for i, x in inflight.items() if not (alone and i == q.id)]
        if alone:
            rec = {"id": q.id, "question": q.shown}
            if kind == "crash":
                self.faults.crashes.append({**rec, "message": how})
            else:
                self.faults.timeouts.append({**rec, "ms": self.timeout_ms})
            self._alone.discard(q.id)
        inflight.clear()
        order.clear()
        retry.extendleft(reversed(rest))
        if self.faults.restarts >= self.max_restarts:
            self.faults.fatal = (
                f"the implementation failed again after {self.faults.restarts} restart(s) "
                f"({kind}: {how}); --restarts N allows more"
            )
            return False
        self.faults.restarts += 1
        return self._start()


class _Writer:
    """Writes request blocks to the child's stdin from a thread (a peer that stops
    reading blocks the thread, never the probe)."""

    def __init__(self, peer: ChildPeer) -> None:
        self.q: queue.Queue[bytes | None] = queue.Queue()
        self.peer = peer
        proc = peer.proc

        def run() -> None:
            while True:
                data = self.q.get()
                if data is None or proc is None or proc.stdin is None:
                    return
                try:
                    proc.stdin.write(data)
                except (OSError, ValueError):
                    return

        threading.Thread(target=run, daemon=True).start()

    def put(self, data: bytes | None) -> None:
        self.q.put(data)


class HttpPeer(Peer):
    """An implementation running as a service: questions POSTed in batches (a JSON
    array of request objects in, a JSON array of answer objects out)."""

    def __init__(self, url: str, batch: int = 1024, timeout_ms: int = 5000) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            from solver.core.errors import BullError

            raise BullError(f"--url {url!r}: expected http://HOST:PORT/PATH")
        self.url = url
        self.parts = parts
        self.batch = max(1, batch)
        self.timeout_ms = timeout_ms
        self.faults = Faults()
        self._conn: Any = None

    def _connection(self) -> Any:
        import http.client

        if self._conn is None:
            cls = (
                http.client.HTTPSConnection
                if self.parts.scheme == "https"
                else http.client.HTTPConnection
            )
            self._conn = cls(
                self.parts.hostname or "", self.parts.port, timeout=self.timeout_ms / 1000
            )
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None

    def _post(self, body: bytes) -> tuple[bytes | None, str]:
        path = self.parts.path or "/"
        if self.parts.query:
            path += "?" + self.parts.query
        for attempt in range(2):  # a kept-alive connection the server closed: once more
            try:
                conn = self._connection()
                conn.request("POST", path, body, {"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                if resp.status != 200:
                    return None, f"HTTP {resp.status} {resp.reason}"
                return data, ""
            except TimeoutError:
                self.close()
                return None, "timeout"
            except (OSError, Exception) as e:
                self.close()
                if attempt:
                    return None, f"{type(e).__name__}: {e}"
        return None, "unreachable"

    def ask(self, questions: Iterable[Question]) -> Iterator[Answer]:
        it = iter(questions)
        answered: set[int] = set()
        failures = 0
        try:
            while True:
                chunk = [q for _, q in zip(range(self.batch), it, strict=False)]
                if not chunk:
                    return
                pending = deque([chunk])
                while pending:
                    part = pending.popleft()
                    body = "[" + ",".join(f'{{"id":{q.id},{q.fields}}}' for q in part) + "]"
                    data, problem = self._post(body.encode())
                    if data is None:
                        failures += 1
                        if not answered and failures > 2:
                            self.faults.fatal = f"{self.url}: {problem}"
                            return
                        if len(part) > 1:  # find the question the service fails on
                            half = len(part) // 2
                            pending.extendleft([part[half:], part[:half]])
                            continue
                        rec = {"id": part[0].id, "question": part[0].shown}
                        if problem == "timeout":
                            self.faults.timeouts.append({**rec, "ms": self.timeout_ms})
                        else:
                            self.faults.crashes.append({**rec, "message": problem})
                        continue
                    yield from self._read(data, {q.id for q in part}, answered)
        except KeyboardInterrupt:
            self.faults.interrupted = True
        finally:
            self.close()

    def _read(self, data: bytes, asked: set[int], answered: set[int]) -> Iterator[Answer]:
        f = self.faults
        try:
            items = json.loads(data)
        except ValueError:
            items = None
        if not isinstance(items, list):
            f.garbage += 1
            if len(f.garbage_lines) < MAX_SHOWN:
                f.garbage_lines.append(
                    data[:120].decode("utf-8", "replace") + " (not a JSON array)"
                )
            return
        for obj in items:
            qid = obj.get("id") if isinstance(obj, dict) else None
            if isinstance(qid, bool) or not isinstance(qid, int):
                f.garbage += 1
                if len(f.garbage_lines) < MAX_SHOWN:
                    f.garbage_lines.append(json.dumps(obj)[:120] + " (no id)")
                continue
            if qid in answered:
                f.duplicates += 1
            elif qid not in asked:
                f.unknown_ids += 1
            else:
                answered.add(qid)
                yield Answer(qid, json.dumps(obj))
