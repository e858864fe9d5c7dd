"""A headless Chromium driven through the Chrome DevTools Protocol over a pipe (Chromium's
``--remote-debugging-pipe``: commands on fd 3, replies on fd 4, each a JSON text ending in NUL).
Standard library only: no websocket client, no driver, no browser download; the browser is the
system's (Debian's ``chromium``). What the tests need: open a page, run JavaScript, type, take a
screenshot, and every console error, uncaught exception and network request the page made."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

BINARIES = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    return next((found for name in BINARIES if (found := shutil.which(name))), None)


class Browser:
    """One headless browser with one page. ``events`` keeps every event the page sent."""

    def __init__(self, binary: str, profile: Path, width: int = 1400, height: int = 1000) -> None:
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()

        def wire() -> None:  # in the child, before exec: the pipes on the fds Chromium reads
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            preexec_fn=wire, pass_fds=(3, 4),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser), os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command to the page."""
        return self._call(method, params, self.session)

    def open(self, url: str, timeout: float = 30) -> None:
        """Load ``url`` and wait for its load event."""
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", timeout)

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise AssertionError(f"JavaScript failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def type_text(self, text: str) -> None:
        """Type into the focused element, as a keyboard would (input events fire)."""
        self.call("Input.insertText", {"text": text})

    def screenshot(self, path: Path, whole_page: bool = True) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png",
                                                    "captureBeyondViewport": whole_page})["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries the page produced."""
        out = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(json.dumps(params["exceptionDetails"])[:300])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(json.dumps(params.get("args"))[:300])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append(params["entry"].get("text", "")[:300])
        return out

    def requests(self) -> list[str]:
        """Every URL the page asked for (the pages themselves included)."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def wait_for(self, method: str, timeout: float = 30) -> dict[str, Any]:
        start = len(self.events)
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events[start:]:
                if event["method"] == method:
                    return event
            start = len(self.events)
            self._read(deadline)

    def close(self) -> None:
        with contextlib.suppress(AssertionError, OSError):
            self._call("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands), os.close(self._replies)

    def _call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
              timeout: float = 30) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply is not None and reply.get("id") == self._next:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def _read(self, deadline: float) -> dict[str, Any] | None:
        """One message; an event is kept in ``events``, a reply returned."""
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise AssertionError("the browser did not answer in time")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise AssertionError("the browser closed its pipe")
            self._buffer += chunk
        text, _, self._buffer = self._buffer.partition(b"\0")
        message = json.loads(text)
        if "method" in message:
            self.events.append(message)
            return None
        return dict(message)
