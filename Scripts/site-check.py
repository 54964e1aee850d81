#!/usr/bin/env python3
"""Checks a report site in a real browser: headless Chromium, driven over
the DevTools protocol on a pipe (Python's standard library only).

    python3 Scripts/site-check.py SITE_DIR [--out RESULT.json]
        [--sizes 1400x900,400x900] [--screenshots DIR] [--only PAGE ...]

Every page of the site (index.html, participants.html, cohorts.html,
trends.html, each meeting page and each track page) is loaded at every
size. From the rendered page, not the HTML text, it measures:

- console errors: uncaught exceptions, console.error/assert calls and the
  browser's own error entries (a resource that failed to load, …);
- sideways overflow: the document wider than the viewport, and every
  element that sticks out of it without a scroll box (overflow-x auto,
  scroll, hidden or clip) around it;
- the first screen: on a meeting page where the verdict's lead and the top
  incident's cause end; on a track page, where its verdict ends.

The result is JSON (stdout, or --out): {"chromium": version, "pages":
[{"page", "kind", "width", "height", ...measures}], "failures": [text]}.
The exit code is 0 when there are no failures, 1 when there are, 2 on bad
usage or when the browser stops answering midway, 77 (skipped) when it
cannot be started or driven at all (the reason on stderr). `Scripts/site-check.sh`
installs Chromium when it is missing and then runs this.
"""

import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

# Runs inside each page after it loaded: measures, returns plain JSON.
MEASURE = r"""
(() => {
  const root = document.documentElement;
  const vw = root.clientWidth, vh = window.innerHeight;
  const scrolls = new Set(['auto', 'scroll', 'hidden', 'clip']);
  const inScrollBox = el => {
    for (let p = el.parentElement; p && p !== root; p = p.parentElement) {
      if (scrolls.has(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  const name = el => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (typeof el.className === 'string' && el.className) s += '.' + el.className.trim().split(/\s+/).join('.');
    return s;
  };
  const path = el => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) parts.unshift(name(e));
    return parts.join(' > ');
  };
  const overflowing = [];
  let count = 0;
  for (const el of document.body.querySelectorAll('*')) {
    // The inside of an SVG is drawn in the SVG's box, which is checked itself.
    if (el.ownerSVGElement) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right <= vw + 0.5 && r.left >= -0.5) continue;
    if (inScrollBox(el)) continue;
    // Report the outermost element only: its children stick out with it.
    const parent = el.parentElement;
    if (parent && parent !== document.body) {
      const pr = parent.getBoundingClientRect();
      if ((pr.right > vw + 0.5 || pr.left < -0.5) && !inScrollBox(parent)) continue;
    }
    count += 1;
    if (overflowing.length < 10) overflowing.push(path(el) + ' [' + Math.round(r.left) + ', ' + Math.round(r.right) + ']');
  }
  const box = sel => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return {top: Math.round(r.top), bottom: Math.round(r.bottom), text: el.textContent.trim().slice(0, 80)};
  };
  return {
    title: document.title,
    textLength: document.body ? document.body.innerText.length : 0,
    viewportWidth: vw, viewportHeight: vh,
    scrollWidth: root.scrollWidth, pageHeight: root.scrollHeight,
    overflowCount: count, overflowing: overflowing,
    verdict: box('#verdict .lead'),
    topIncidentCause: box('#verdict ol.incidents > li:first-child .cause'),
    trackVerdict: box('p.notice.track-verdict') || box('body > p.notice'),
  };
})()
"""


class Browser:
    """One headless Chromium, spoken to over --remote-debugging-pipe: the
    browser reads NUL-terminated JSON commands on fd 3, answers on fd 4."""

    def __init__(self, binary, log):
        self.profile = tempfile.mkdtemp(prefix="mqa-site-check-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "about:blank"]
        # The shell puts the two pipe ends on fds 3 and 4, where Chromium
        # looks for them, whatever numbers they have here.
        self.process = subprocess.Popen(
            ["sh", "-c", 'exec "$@" 3<&0 4>&1 </dev/null >/dev/null', "sh"] + args,
            stdin=to_browser_r, stdout=from_browser_w, stderr=log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        """Sends a command and waits for its answer; events that arrive
        meanwhile are kept in `events`."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline)
            if reply is None:
                raise RuntimeError(f"{method}: no answer in {timeout} s")
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def receive(self, deadline):
        """The next message, or None when the deadline passes first."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the pipe (it exited; see its log)")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method, session, timeout):
        """Waits for an event of `method` in `session`; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            for k, e in enumerate(self.events):
                if e["method"] == method and e.get("sessionId") == session:
                    del self.events[k]
                    return True
            message = self.receive(deadline)
            if message is None:
                return False
            if "method" in message:
                self.events.append(message)

    def drain(self, seconds):
        """Collects the events of the next `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            message = self.receive(deadline)
            if message is None:
                return
            if "method" in message:
                self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self.to_browser, self.from_browser):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events, session):
    """The page's errors among the collected events, as text."""
    out = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        p = e.get("params", {})
        if e["method"] == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "?")))
        elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console." + p["type"] + ": " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            entry = p["entry"]
            out.append(f"{entry.get('source', 'log')}: {entry.get('text', '')} {entry.get('url', '')}".strip())
    return out


def kind_of(page):
    """The page type by its place in the site."""
    if page.startswith("tracks/"):
        return "track"
    return {"index.html": "fleet", "participants.html": "participants", "cohorts.html": "cohorts",
            "trends.html": "trends"}.get(page, "meeting")


def site_pages(site):
    pages = sorted(f for f in os.listdir(site) if f.endswith(".html"))
    tracks = os.path.join(site, "tracks")
    if os.path.isdir(tracks):
        pages += sorted("tracks/" + f for f in os.listdir(tracks) if f.endswith(".html"))
    return pages


def failures_of(r):
    """What is wrong with one page at one size."""
    where = f"{r['page']} at {r['width']}×{r['height']}"
    out = [f"{where}: {e}" for e in r["consoleErrors"]]
    if r.get("error"):
        return out + [f"{where}: {r['error']}"]
    if r["textLength"] == 0:
        out.append(f"{where}: nothing rendered")
    if r["scrollWidth"] > r["viewportWidth"]:
        out.append(f"{where}: the page is {r['scrollWidth']} px wide in a {r['viewportWidth']} px viewport")
    if r["overflowCount"]:
        out.append(f"{where}: {r['overflowCount']} element(s) overflow sideways outside a scroll box: " + "; ".join(r["overflowing"]))
    if r["kind"] == "meeting":
        for key, what in (("verdict", "the verdict's lead"), ("topIncidentCause", "the top incident's cause")):
            b = r[key]
            if key == "topIncidentCause" and b is None:
                continue  # a meeting without incidents
            if b is None:
                out.append(f"{where}: no {what}")
            elif b["bottom"] > r["viewportHeight"] or b["top"] < 0:
                out.append(f"{where}: {what} ends at {b['bottom']} px, below the first screen ({r['viewportHeight']} px)")
    if r["kind"] == "track" and (r["trackVerdict"] is None or r["trackVerdict"]["bottom"] > r["viewportHeight"]):
        out.append(f"{where}: the track's verdict is not on the first screen")
    return out


def main():
    ap = argparse.ArgumentParser(description="Check a report site in headless Chromium.")
    ap.add_argument("site")
    ap.add_argument("--out")
    ap.add_argument("--sizes", default="1400x900,400x900")
    ap.add_argument("--screenshots", help="write a full-width screenshot of the first screen of each page here")
    ap.add_argument("--only", nargs="*", help="these pages (relative to the site) instead of all")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    a = ap.parse_args()
    binary = shutil.which(a.chromium)
    if not binary:
        print(f"site-check: no {a.chromium} on PATH", file=sys.stderr)
        return 2
    sizes = [tuple(int(n) for n in s.split("x")) for s in a.sizes.split(",")]
    pages = a.only or site_pages(a.site)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    log = tempfile.TemporaryFile()
    browser = Browser(binary, log)
    results = []
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            browser.send(method, session=session)
    except (RuntimeError, OSError) as e:
        # A browser that cannot start here (no display libraries, no
        # /dev/shm, …) is a machine that cannot run the check: skipped.
        browser.close()
        log.seek(0)
        tail = log.read().decode(errors="replace")[-2000:]
        print(f"site-check: skipped: {binary} cannot be driven: {e}\n{tail}", file=sys.stderr)
        return 77
    try:
        for width, height in sizes:
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
            for page in pages:
                browser.events.clear()
                url = "file://" + os.path.abspath(os.path.join(a.site, page))
                r = {"page": page, "kind": kind_of(page), "width": width, "height": height}
                started = time.monotonic()
                browser.send("Page.navigate", {"url": url}, session=session)
                if not browser.wait_for("Page.loadEventFired", session, 30):
                    r.update(error="did not load in 30 s", consoleErrors=[])
                    results.append(r)
                    continue
                # Errors logged just after the load event still count.
                browser.drain(0.05)
                got = browser.send("Runtime.evaluate", {"expression": MEASURE, "returnByValue": True}, session=session)
                if "exceptionDetails" in got:
                    r["error"] = "the measuring script failed: " + json.dumps(got["exceptionDetails"])[:300]
                else:
                    r.update(got["result"]["value"])
                r["consoleErrors"] = console_errors(browser.events, session)
                r["seconds"] = round(time.monotonic() - started, 2)
                if a.screenshots:
                    os.makedirs(a.screenshots, exist_ok=True)
                    shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
                    name = page.replace("/", "_").removesuffix(".html") + f"-{width}x{height}.png"
                    with open(os.path.join(a.screenshots, name), "wb") as f:
                        f.write(base64.b64decode(shot["data"]))
                results.append(r)
    except (RuntimeError, OSError) as e:
        log.seek(0)
        tail = log.read().decode(errors="replace")[-2000:]
        print(f"site-check: {e}\n{tail}", file=sys.stderr)
        return 2
    finally:
        browser.close()
    failures = [f for r in results for f in failures_of(r)]
    out = json.dumps({"chromium": version, "pages": results, "failures": failures}, indent=1, ensure_ascii=False)
    if a.out:
        with open(a.out + ".tmp", "w") as f:
            f.write(out + "\n")
        os.replace(a.out + ".tmp", a.out)
    else:
        print(out)
    for f in failures:
        print("site-check: " + f, file=sys.stderr)
    print(f"site-check: {len(results)} page loads ({len(pages)} pages × {len(sizes)} sizes), {len(failures)} failure(s)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
