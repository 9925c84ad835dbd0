"""Talking to an implementation that runs as a service: questions POSTed in batches
(a JSON array of the JSON Lines request objects in, a JSON array of answer objects
out), over one kept-alive connection.

A batch that fails (a refused connection, an HTTP error, a timeout) is halved until the
question the service fails on is found: it is named (``crashes``, or ``timeouts``) and
skipped. A service that never answers ends the run (``fatal``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

from solver.core.errors import BullError
from solver.probe.faults import Answer, Faults, Question
from solver.probe.peer import Peer, Seen, answer_id

__all__ = ["HttpPeer"]


class HttpPeer(Peer):
    """A service at ``url`` (see the module docstring)."""

    def __init__(self, url: str, batch: int = 1024, timeout_ms: int = 5000) -> None:
        parts = urlsplit(url)
        try:
            port_ok = parts.port is None or parts.port > 0
        except ValueError:  # not a number, or out of range
            port_ok = False
        if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
            raise BullError(f"--url {url!r}: expected http://HOST:PORT/PATH")
        self.url = url
        self.parts = parts
        self.batch = max(1, batch)
        self.timeout_ms = timeout_ms
        self.faults = Faults()
        self.answered = Seen()
        self._conn: Any = None

    def _connection(self) -> Any:
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
            except (OSError, http.client.HTTPException) as e:
                self.close()
                if attempt:
                    return None, f"{type(e).__name__}: {e}"
        return None, "unreachable"

    def ask(self, questions: Iterable[Question]) -> Iterator[list[Answer]]:
        it = iter(questions)
        failures = 0
        answered_any = False
        try:
            while True:
                chunk = [q for _, q in zip(range(self.batch), it, strict=False)]
                if not chunk:
                    return
                self.sent += len(chunk)
                pending = deque([chunk])
                while pending:
                    part = pending.popleft()
                    body = "[" + ",".join(f'{{"id":{q.id},{q.fields}}}' for q in part) + "]"
                    data, problem = self._post(body.encode())
                    if data is None:
                        failures += 1
                        if not answered_any and failures > 2:
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
                    got = self._read(data, {q.id: q for q in part})
                    if got:
                        answered_any = True
                        yield got
        except KeyboardInterrupt:
            self.faults.interrupted = True
        finally:
            self.close()

    def _read(self, data: bytes, asked: dict[int, Question]) -> list[Answer]:
        f, out = self.faults, []
        try:
            items = json.loads(data)
        except ValueError:
            items = None
        if not isinstance(items, list):
            f.bad_line(data[:120].decode("utf-8", "replace") + " (not a JSON array)")
            return []
        for obj in items:
            line = json.dumps(obj).encode()
            qid, problem = answer_id(line)
            if qid is None:
                f.bad_line(line.decode()[:120] + f" ({problem})")
                continue
            q = asked.pop(qid, None)
            if q is None:
                if qid in self.answered:
                    f.duplicates += 1
                else:
                    f.unknown_ids += 1
                continue
            self.answered.add(qid)
            out.append(Answer(q, line))
        return out
