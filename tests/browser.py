"""Headless chromium for the tests: open a page, click, read the DOM, screenshot, console.

Standard library only, plus Debian's ``chromium`` binary. Chromium is started with
``--remote-debugging-pipe`` and driven through the DevTools protocol over two pipes (the
browser reads commands on its fd 3 and writes replies and events on its fd 4, each a
JSON message ended by a NUL byte). That gives what the command line alone cannot:
every console message and uncaught exception as an event (no scraping of stderr), real
mouse clicks, the DOM after the page's script ran, and full-page screenshots.

``require_chromium()`` skips the calling test, with the install command, when no
chromium is found (``$CHROMIUM`` names another binary).
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import pytest

Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
)
INSTALL = "apt-get install -y chromium"


class BrowserError(RuntimeError):
    """Chromium did not answer, answered with an error, or exited."""


def find_chromium() -> str | None:
    """The chromium binary: ``$CHROMIUM``, else the first of the usual names on PATH."""
    named = os.environ.get("CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    """The chromium binary, or skip the calling test saying how to install it."""
    found = find_chromium()
    if found is None:
        named = os.environ.get("CHROMIUM")
        if named:
            pytest.skip(f"browser check: CHROMIUM={named} is not an executable")
        pytest.skip(f"browser check needs chromium, which is not installed ({INSTALL})")
    return found


# --------------------------------------------------------------------------- the pipe


def _high_fd(fd: int) -> int:
    """``fd`` moved to a number >= 10, so that putting pipe ends on 3 and 4 clobbers none."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


@dataclass
class _Pipe:
    """The DevTools connection: commands out, replies and events in, NUL-framed JSON."""

    out_fd: int
    in_fd: int
    buffer: bytes = b""
    next_id: int = 0
    events: list[dict[str, Json]] = field(default_factory=list)

    def send(self, method: str, params: dict[str, Json], session: str | None) -> int:
        self.next_id += 1
        message: dict[str, Json] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.out_fd, data) :]
        return self.next_id

    def receive(self, deadline: float) -> dict[str, Json]:
        """The next message; BrowserError when the deadline passes or chromium exits."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self.in_fd], [], [], left)
            if ready:
                chunk = os.read(self.in_fd, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed the DevTools pipe (it exited)")
                self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        message = json.loads(raw)
        if not isinstance(message, dict):
            raise BrowserError(f"unexpected DevTools message: {raw[:200]!r}")
        return message

    def call(
        self, method: str, params: dict[str, Json], session: str | None, timeout: float
    ) -> dict[str, Json]:
        """Send a command and wait for its reply, keeping the events that come meanwhile."""
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") != wanted:
                if "method" in message:
                    self.events.append(message)
                continue
            error = message.get("error")
            if error is not None:
                raise BrowserError(f"{method}: {error}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}


# --------------------------------------------------------------------------- a page


@dataclass(frozen=True)
class ConsoleMessage:
    """A console call (level ``log``, ``warning``, ``error``...) or an uncaught exception."""

    level: str
    text: str

    @property
    def is_error(self) -> bool:
        return self.level in ("error", "assert", "exception")


def _console_text(args: Json) -> str:
    parts = []
    for arg in args if isinstance(args, list) else []:
        if isinstance(arg, dict):
            shown = arg.get("value", arg.get("description", arg.get("type", "")))
            parts.append(str(shown))
    return " ".join(parts)


def _as_console(event: dict[str, Json]) -> ConsoleMessage | None:
    params = event.get("params")
    if not isinstance(params, dict):
        return None
    method = event.get("method")
    if method == "Runtime.consoleAPICalled":
        return ConsoleMessage(str(params.get("type", "log")), _console_text(params.get("args")))
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails")
        if isinstance(details, dict):
            thrown = details.get("exception")
            text = thrown.get("description") if isinstance(thrown, dict) else None
            return ConsoleMessage("exception", str(text or details.get("text", "")))
    if method == "Log.entryAdded":
        entry = params.get("entry")
        if isinstance(entry, dict):
            return ConsoleMessage(str(entry.get("level", "info")), str(entry.get("text", "")))
    return None


@dataclass
class Page:
    """One tab: evaluate script, click, take screenshots; ``console`` collects messages."""

    pipe: _Pipe
    session: str
    timeout: float
    width: int
    height: int
    target: str = ""

    def call(self, method: str, params: dict[str, Json] | None = None) -> dict[str, Json]:
        return self.pipe.call(method, params or {}, self.session, self.timeout)

    def close(self) -> None:
        """Close the tab (the browser keeps running)."""
        self.pipe.call("Target.closeTarget", {"targetId": self.target}, None, self.timeout)

    @property
    def console(self) -> list[ConsoleMessage]:
        self.evaluate("0")  # a round trip, so that events sent before it are in
        mine = [e for e in self.pipe.events if e.get("sessionId") == self.session]
        return [m for m in map(_as_console, mine) if m is not None]

    @property
    def errors(self) -> list[str]:
        return [f"{m.level}: {m.text}" for m in self.console if m.is_error]

    def evaluate(self, expression: str) -> Json:
        """A JavaScript expression's value (JSON-able); BrowserError if it threw."""
        params: dict[str, Json] = {"expression": expression, "returnByValue": True}
        reply = self.call("Runtime.evaluate", {**params, "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise BrowserError(f"evaluate {expression!r}: {reply['exceptionDetails']}")
        result = reply.get("result")
        return result.get("value") if isinstance(result, dict) else None

    def dom(self) -> str:
        """The document as serialised now (what ``--dump-dom`` prints, after scripts ran)."""
        return str(self.evaluate("document.documentElement.outerHTML"))

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) in the middle of the element."""
        found = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if not isinstance(found, list) or len(found) != 2:
            raise BrowserError(f"click: nothing matches {selector!r}")
        x, y = found
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            event: dict[str, Json] = {"type": kind, "x": x, "y": y, "button": "left"}
            self.call("Input.dispatchMouseEvent", {**event, "clickCount": 1})

    def choose(self, selector: str, value: str) -> None:
        """Pick an option of a ``<select>`` as a user would: set it, fire ``change``."""
        ok = self.evaluate(
            f"(() => {{ const s = document.querySelector({json.dumps(selector)});"
            f" if (!s) return false; s.value = {json.dumps(value)};"
            " s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()"
        )
        if ok != value:
            raise BrowserError(f"choose: {selector!r} has no option {value!r}")

    def screenshot(
        self,
        path: Path,
        full_page: bool = True,
        media: str = "screen",
        top: int = 0,
        height: int | None = None,
    ) -> Path:
        """A PNG of the page, as on screen or as printed (``media="print"``).

        The whole page when ``full_page`` (up to 16000 px), else the viewport; ``top`` and
        ``height`` cut out a band of the page instead (``height`` also caps ``full_page``).
        """
        self.call("Emulation.setEmulatedMedia", {"media": "" if media == "screen" else media})
        if full_page:
            height = min(height or 16000, self.content_height() - top)
        elif height is None:
            height = self.height
        clip: dict[str, Json] = {"x": 0, "y": top, "width": self.width, "height": height}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "clip": {**clip, "scale": 1}, "captureBeyondViewport": True},
        )
        path.write_bytes(base64.b64decode(str(shot.get("data", ""))))
        self.call("Emulation.setEmulatedMedia", {"media": ""})
        return path

    def content_height(self) -> int:
        """The page's full height in CSS pixels (at least the viewport, at most 16000)."""
        size = self.call("Page.getLayoutMetrics").get("cssContentSize")
        found = size.get("height") if isinstance(size, dict) else None
        tall = int(found + 0.5) if isinstance(found, (int, float)) else self.height
        return min(16000, max(self.height, tall))


# --------------------------------------------------------------------------- the browser


@dataclass
class Browser:
    """A running headless chromium; use :func:`chromium` to start and stop one."""

    process: subprocess.Popen[bytes]
    pipe: _Pipe
    timeout: float

    def open(self, url: str, width: int = 1366, height: int = 768, javascript: bool = True) -> Page:
        """A new tab showing ``url``, returned once the page's load event fired.

        ``javascript=False`` disables the page's own scripts (as a reader with scripts
        off would see it); :meth:`Page.evaluate` still works.
        """
        target = self.pipe.call("Target.createTarget", {"url": "about:blank"}, None, self.timeout)
        attached = self.pipe.call(
            "Target.attachToTarget",
            {"targetId": target.get("targetId"), "flatten": True},
            None,
            self.timeout,
        )
        session = str(attached.get("sessionId"))
        page = Page(self.pipe, session, self.timeout, width, height, str(target.get("targetId")))
        for domain in ("Runtime", "Log", "Page"):
            page.call(f"{domain}.enable")
        metrics: dict[str, Json] = {"width": width, "height": height, "deviceScaleFactor": 1}
        page.call("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": False})
        if not javascript:
            page.call("Emulation.setScriptExecutionDisabled", {"value": True})
        self._load(page, url)
        return page

    def _load(self, page: Page, url: str) -> None:
        already = len(self.pipe.events)
        reply = page.call("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise BrowserError(f"navigate {url}: {reply['errorText']}")
        deadline = time.monotonic() + self.timeout
        while not any(
            e.get("method") == "Page.loadEventFired" and e.get("sessionId") == page.session
            for e in self.pipe.events[already:]
        ):
            message = self.pipe.receive(deadline)
            if "method" in message:
                self.pipe.events.append(message)


_TRAMPOLINE = (
    "import os, sys\n"
    "a, b = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.dup2(a, 3)\n"
    "os.dup2(b, 4)\n"
    "os.close(a)\n"
    "os.close(b)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


def _start(binary: str, profile: str) -> tuple[subprocess.Popen[bytes], _Pipe]:
    to_browser_r, to_browser_w = (_high_fd(fd) for fd in os.pipe())
    from_browser_r, from_browser_w = (_high_fd(fd) for fd in os.pipe())
    command = [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
    # A trampoline puts the pipe ends on fds 3 and 4, where chromium expects them.
    process = subprocess.Popen(
        [sys.executable, "-I", "-c", _TRAMPOLINE, str(to_browser_r), str(from_browser_w), *command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(to_browser_r, from_browser_w),
        start_new_session=True,
    )
    os.close(to_browser_r)
    os.close(from_browser_w)
    return process, _Pipe(out_fd=to_browser_w, in_fd=from_browser_r)


def _stop(process: subprocess.Popen[bytes], pipe: _Pipe) -> None:
    """Ask chromium to close; kill its process group (started by us) if it lingers."""
    with suppress(OSError):
        pipe.send("Browser.close", {}, None)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # leftover helpers of the group we started
    for fd in (pipe.out_fd, pipe.in_fd):
        os.close(fd)


@contextmanager
def chromium(binary: str | None = None, timeout: float = 30.0) -> Iterator[Browser]:
    """A headless chromium for the duration of the ``with`` block, with a fresh profile."""
    found = binary or require_chromium()
    with tempfile.TemporaryDirectory(prefix="retrieval-chromium-") as profile:
        process, pipe = _start(found, profile)
        try:
            pipe.call("Browser.getVersion", {}, None, timeout)  # up and answering
            yield Browser(process, pipe, timeout)
        finally:
            _stop(process, pipe)


@dataclass(frozen=True)
class Rendering:
    """What :func:`render` saw: the screenshot, the DOM after scripts, console errors."""

    screenshot: Path
    dom: str
    errors: list[str]
    seconds: float


def render(
    html_file: Path, png: Path, width: int = 1366, height: int = 768, full_page: bool = True
) -> Rendering:
    """Open ``html_file`` from ``file://`` in a fresh headless chromium and screenshot it."""
    started = time.monotonic()
    with chromium() as browser:
        page = browser.open(html_file.resolve().as_uri(), width, height)
        page.screenshot(png, full_page=full_page)
        dom, errors = page.dom(), page.errors
    return Rendering(png, dom, errors, time.monotonic() - started)
