"""One overwritten status line for long work: shown on a terminal, silent when piped.

>>> import io
>>> piped = io.StringIO()
>>> with StatusLine(piped) as status:
...     status.show("building niuniu ...")
>>> piped.getvalue()
''
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

__all__ = ["StatusLine"]

_CLEAR = "\r\033[K"


class StatusLine:
    """Progress on ``stream`` (default stderr) only when it is a terminal; the line is
    cleared when the ``with`` block ends, however it ends."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def show(self, text: str) -> None:
        if self.live:
            self.stream.write(_CLEAR + text)
            self.stream.flush()

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.live:
            self.stream.write(_CLEAR)
            self.stream.flush()
