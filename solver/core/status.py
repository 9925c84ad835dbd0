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
    """Progress on ``stream`` (default stderr) only when it is a terminal, or always
    with ``force`` (a ``--progress`` flag: one line per update when not a terminal);
    the line is cleared when the ``with`` block ends, however it ends.

    >>> import io
    >>> forced = io.StringIO()
    >>> with StatusLine(forced, force=True) as status:
    ...     status.show("step 1")
    >>> forced.getvalue()
    'step 1\\n'
    """

    def __init__(self, stream: Any = None, force: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.live = self.tty or force

    def show(self, text: str) -> None:
        if self.tty:
            self.stream.write(_CLEAR + text)
            self.stream.flush()
        elif self.live:
            self.stream.write(text + "\n")
            self.stream.flush()

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.tty:
            self.stream.write(_CLEAR)
            self.stream.flush()
