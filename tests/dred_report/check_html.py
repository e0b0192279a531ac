#!/usr/bin/env python3
"""`d12dred html` in a real browser (issue 32 item 8): the page of a report, opened in headless Chromium and driven
through the DevTools protocol over a pipe (--remote-debugging-pipe), must

  - fetch nothing but itself (every Network.requestWillBeSent is the page's own file:// URL),
  - log no console message, exception or CSP violation (Runtime.consoleAPICalled, Runtime.exceptionThrown,
    Log.entryAdded) and open no dialog,
  - show, as rendered text (innerText after layout, so nothing hidden counts), the same key facts as
    `d12dred show` of the report: the reason, the device state, the verdict, the page fault's VA and the faulting op's
    line (`#5 DRAWINDEXEDINSTANCED(4)  <- FAULT (exact)`),
  - have the verdict and the faulting op in the first viewport (1280x800) without scrolling, and the faulting op of
    the breadcrumb tree open (every <details> around it open) and highlighted,
  - render application strings as text: with --hostile, every name, context and message of the report is replaced by
    markup (`<script>`, `<img src=x onerror=...>`, `</details>`, quotes); the page must hold no <script> or <img>
    element, fetch nothing, and show the markup literally.

  - show members it does not know (a later d12rt's): with --extras, members are added at the top level, in a queue
    and in the faulting op; each key and value must be rendered text, in its owner's part of the page.

  - speak of a stall (D12RT_STALL_MS: the device was not removed) in the present: with --stall the report is made one
    (`kind` stall, reason 0); the page has no reason, no page-fault section, "outstanding now", and fence values
    "when the stall was reported".

    check_html.py D12DRED REPORT.json [--hostile | --extras | --stall] [--screenshot PNG]
    check_html.py D12DRED --demo DRED_DEMO fault|hang [--screenshot PNG]
                     (the report of a real run: DRED_DEMO with D12RT_DRED_DUMP set to a temporary folder)

Exit 77 (CTest SKIP_RETURN_CODE) when no Chromium is installed, and only then. Chromium runs with --no-sandbox
(as root, in CI, it refuses to start otherwise). Ends with `N passed, N failed`.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
WIDTH, HEIGHT = 1280, 800
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)></details>\"'&amp;"
passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"check failed: {what}{': ' + detail if detail else ''}", file=sys.stderr)


def find_chromium():
    for name in (os.environ.get("D12RT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """Headless Chromium spoken to over the DevTools pipe (fd 3: commands in, fd 4: replies and events out)."""

    def __init__(self, chromium, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        # the launcher script (Debian's /usr/bin/chromium) execs the browser: fds 3 and 4 must be open across it
        self.proc = subprocess.Popen(
            ["sh", "-c", f'exec 3<&{to_r} 4>&{from_w}; exec "$@"', "sh", chromium, "--headless", "--no-sandbox",
             "--disable-gpu", "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
            pass_fds=(to_r, from_w), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_r)
        os.close(from_w)
        self.pending = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_w, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.pending:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_r, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed the DevTools pipe: " + self.proc.stderr.read().decode()[-2000:])
            self.pending += chunk
        message, self.pending = self.pending.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=60):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_event(self, name, timeout=60):
        deadline = time.monotonic() + timeout
        for message in self.events:
            if message.get("method") == name:
                return message
        while True:
            message = self.receive(deadline)
            self.events.append(message)
            if message.get("method") == name:
                return message

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=15)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)


# What the page is asked after layout: rendered text, boxes, and which <details> are open around the faulting op.
PROBE = r"""(() => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                     return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height}; };
  const text = id => { const e = document.getElementById(id); return e ? e.innerText : null; };
  const faultLink = document.getElementById('fault-op-line');
  const target = faultLink ? document.getElementById(faultLink.getAttribute('href').slice(1)) : null;
  let closed = 0;
  for (let e = target; e; e = e.parentElement) if (e.tagName === 'DETAILS' && !e.open) closed++;
  return {
    viewport: {width: window.innerWidth, height: window.innerHeight}, scrollY: window.scrollY,
    verdict: text('verdict-text'), verdictBox: box(document.getElementById('verdict-text')),
    verdictText: text('verdict'),
    faultOp: text('fault-op'), faultOpLine: faultLink ? faultLink.innerText : null, faultOpBox: box(faultLink),
    summary: text('summary'), body: document.body.innerText,
    target: target ? {id: target.id, cls: target.className, text: target.innerText,
                      visible: target.checkVisibility(), closedAround: closed,
                      background: getComputedStyle(target).backgroundColor} : null,
    scripts: document.querySelectorAll('script').length, images: document.querySelectorAll('img').length,
    iframes: document.querySelectorAll('iframe,object,embed,link,base').length,
    urls: Array.from(document.querySelectorAll('[src],[href],[action],[srcset]'))
              .map(e => e.getAttribute('src') || e.getAttribute('href') || e.getAttribute('action') || '')
              .filter(u => !u.startsWith('#')),
    vamap: text('va-map'), faultVa: text('fault-va'),
    timelines: text('timelines'), vamapBox: box(document.getElementById('va-map')),
    timelinesBox: box(document.getElementById('timelines')),
  };
})()"""


def open_page(chromium, page, screenshot):
    """Loads `page` and returns (probe result, network requests, console problems)."""
    with tempfile.TemporaryDirectory(prefix="d12dred-html-profile-") as profile:
        browser = Browser(chromium, profile)
        try:
            target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page.enable", "Network.enable", "Runtime.enable", "Log.enable"):
                browser.call(domain, None, session)
            browser.call("Emulation.setDeviceMetricsOverride",
                         {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
            browser.events.clear()
            url = page.resolve().as_uri()
            browser.call("Page.navigate", {"url": url}, session)
            browser.wait_event("Page.loadEventFired")
            probe = browser.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session)
            if screenshot:
                shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
                import base64
                Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
            # anything logged late (a lazy fetch) is still seen: one more round trip after a short pause
            time.sleep(0.3)
            browser.call("Runtime.evaluate", {"expression": "1"}, session)
        finally:
            browser.close()
    events = browser.events
    requests = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    problems = [e for e in events if e.get("method") in ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")
                or (e.get("method") == "Runtime.consoleAPICalled")
                or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] in ("error", "warning"))]
    if "exceptionDetails" in probe:
        problems.append({"probe": probe["exceptionDetails"]})
    return probe.get("result", {}).get("value"), requests, problems, url


VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "embed", "source", "track"}


def unbalanced(source):
    """The first element closed out of order or left open (the browser forgives what the page must not rely on)."""
    from html.parser import HTMLParser

    class Balance(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.stack, self.problem = [], None

        def handle_starttag(self, tag, attrs):
            if tag not in VOID:
                self.stack.append((tag, self.getpos()))

        def handle_endtag(self, tag):
            if self.problem is None and (not self.stack or self.stack[-1][0] != tag):
                self.problem = f"</{tag}> at {self.getpos()} closes {self.stack[-1] if self.stack else 'nothing'}"
            elif self.stack:
                self.stack.pop()
    parser = Balance()
    parser.feed(source)
    parser.close()
    return parser.problem or (f"left open: {parser.stack}" if parser.stack else None)


def show_facts(d12dred, report):
    """The key facts of `d12dred show REPORT`: reason, device state, verdict, VA and the faulting op's line."""
    result = subprocess.run([d12dred, "show", str(report)], capture_output=True, text=True, timeout=30)
    check(result.returncode == 0, "d12dred show", result.stderr)
    lines = result.stdout.splitlines()

    def field(label):
        for line in lines:
            if line.startswith(f"  {label} ") and line[2 + len(label):2 + 14].strip() == "":
                return line[16:]
        return None
    op_lines = [line.strip() for line in lines if re.match(r"^ +#\d+ .*<- (FAULT|HANG) \(exact\)", line)]
    op_lines += [line.strip() for line in lines if re.match(r"^ +#\d+ .*<- first outstanding \(suspect\)", line)]
    # the bundle's draw under an attributed EXECUTEBUNDLE (issue 32 item 1): the line after the op's
    bundle = None
    for i, line in enumerate(lines[:-1]):
        if op_lines and line.strip() == op_lines[0] and lines[i + 1].strip().startswith("[bundle "):
            bundle = lines[i + 1].strip()
    va = field("VA")
    # a stall report is of a device that was not removed: no reason or device state (issue 32 item 4)
    stall = (field("kind") or "").startswith("stall")
    # show's verdict lines: a hang's or stall's (the deadlock, a fence gone backwards) in the header, the page fault's
    verdicts = [line[16:] for line in lines if line.startswith("  verdict       ")]
    # the resource timelines (issue 32 item 7): `show --timeline VA`'s lines for each timeline of the report
    timelines = []
    for timeline in json.loads(Path(report).read_text(encoding="utf-8")).get("timelines", []):
        shown = subprocess.run([d12dred, "show", str(report), "--timeline", timeline["va"]], capture_output=True,
                               text=True, timeout=30)
        check(shown.returncode == 0, f"d12dred show --timeline {timeline['va']}", shown.stderr)
        timelines.append(shown.stdout.splitlines())
    return {"reason": None if stall else field("reason"), "device state": None if stall else field("device state"),
            "verdict": verdicts[0] if verdicts else None, "verdicts": verdicts, "VA": va,
            "op": op_lines[0] if op_lines else None, "bundle": bundle, "detail": field("detail"),
            "timelines": timelines}


def squash(text):
    return re.sub(r"\s+", " ", text or "").strip()


def check_page(d12dred, chromium, report, hostile_markup, screenshot, extras=False, stall=False):
    with tempfile.TemporaryDirectory(prefix="d12dred-html-") as tmp:
        page = Path(tmp) / "report.html"
        result = subprocess.run([d12dred, "html", str(report), "-o", str(page)], capture_output=True, text=True,
                                timeout=30)
        check(result.returncode == 0 and page.is_file(), "d12dred html -o", result.stderr)
        if result.returncode != 0:
            return
        source = page.read_text(encoding="utf-8")
        facts = show_facts(d12dred, report)
        probe, requests, problems, url = open_page(chromium, page, screenshot)
    check(probe is not None, "the probe ran in the page")
    if probe is None:
        return
    # nothing fetched, no console errors, nothing active in the page
    check(requests == [url], "the page fetched nothing but itself", f"{requests}")
    check(not problems, "no console message, exception, dialog or CSP violation", json.dumps(problems)[:2000])
    check(probe["scripts"] == 0 and probe["images"] == 0 and probe["iframes"] == 0,
          "no <script>, <img>, <iframe>, <link> or <base> element", f"{probe['scripts']}, {probe['images']}, "
          f"{probe['iframes']}")
    check(probe["urls"] == [], "no src/href/action outside the page", f"{probe['urls']}")
    check(not re.search(r"(?i)\b(?:https?|file|ftp|data|javascript):", source.split("</style>", 1)[-1]),
          "no URL scheme in the page's markup")
    problem = unbalanced(source)
    check(problem is None, "every element closed, in order", f"{problem}")
    # the same facts as show, as rendered text
    summary = squash(probe["summary"])
    if facts["reason"]:
        check(squash(facts["reason"]) in summary, "the reason as show prints it",
              f"{facts['reason']!r} in {summary[:300]!r}")
    if facts["device state"]:
        check(squash(facts["device state"]) in summary, "the device state as show prints it")
    if facts["verdict"]:
        check(squash(probe["verdict"]) == squash(facts["verdict"]), "the verdict is show's (its first)",
              f"page {probe['verdict']!r}, show {facts['verdict']!r}")
        for verdict in facts["verdicts"][1:]:
            check(squash(verdict) in squash(probe["verdictText"]), "show's other verdicts are in the verdict box",
                  f"{verdict!r}")
    else:
        check(bool(squash(probe["verdict"])), "a verdict is rendered", f"{probe['verdict']!r}")
    if facts["VA"]:
        check(squash(facts["VA"]) in summary, "the page fault's VA as show prints it", f"{facts['VA']!r}")
        check(probe["faultVa"] and facts["VA"].split()[0] in probe["faultVa"], "the VA map marks the VA",
              f"{probe['faultVa']!r}")
    if facts["detail"]:
        check(squash(facts["detail"]) in squash(probe["body"]), "the verdict's detail as show prints it",
              f"{facts['detail']!r}")
    # the timelines beside the VA map, in show --timeline's words, as rendered text
    for lines in facts["timelines"]:
        for line in lines:
            check(squash(line) in squash(probe["timelines"]), "a timeline line as show --timeline prints it",
                  f"{line!r} in {(probe['timelines'] or '')[:400]!r}")
    if facts["timelines"] and facts["VA"]:
        vbox, tbox = probe["vamapBox"], probe["timelinesBox"]
        check(vbox and tbox and tbox["left"] >= vbox["right"] and tbox["top"] < vbox["bottom"] and
              vbox["top"] < tbox["bottom"], "the timelines are beside the VA map", f"map {vbox}, timelines {tbox}")
    if facts["op"]:
        check(squash(probe["faultOpLine"]) == squash(facts["op"]), "the faulting op's line is show's",
              f"page {probe['faultOpLine']!r}, show {facts['op']!r}")
        target = probe["target"]
        check(target is not None, "the faulting op is in the breadcrumb tree")
        if target:
            check(target["visible"] and target["closedAround"] == 0, "the tree's faulting op is expanded",
                  f"{target}")
            check("fault" in target["cls"] or "suspect" in target["cls"], "the tree's faulting op is highlighted",
                  target["cls"])
            check(squash(facts["op"]) in squash(target["text"]), "the tree's op line is show's")
            if facts["bundle"]:
                check(squash(facts["bundle"]) in squash(target["text"]), "the tree's op names the bundle's draw as show",
                      f"{facts['bundle']!r} in {target['text'][:300]!r}")
        if facts["bundle"]:
            check(squash(facts["bundle"]) in squash(probe["faultOp"]), "the first screen names the bundle's draw",
                  f"{facts['bundle']!r} in {(probe['faultOp'] or '')[:300]!r}")
    else:
        check(probe["faultOpLine"] is None, "no faulting op where show has none")
    # in the first screen, unscrolled
    height = probe["viewport"]["height"]
    check(probe["viewport"]["width"] == WIDTH and height == HEIGHT, "the viewport is 1280x800", f"{probe['viewport']}")
    check(probe["scrollY"] == 0, "the page is not scrolled")
    vbox = probe["verdictBox"]
    check(vbox and vbox["top"] >= 0 and vbox["bottom"] <= height and vbox["height"] > 0,
          "the verdict is in the first viewport", f"{vbox}")
    if facts["op"]:
        fbox = probe["faultOpBox"]
        check(fbox and fbox["top"] >= 0 and fbox["bottom"] <= height and fbox["height"] > 0,
              "the faulting op is in the first viewport", f"{fbox}")
    if extras:
        check_extras(probe)
    if stall:
        check_stall(probe)
    if hostile_markup:
        body = probe["body"]
        check(HOSTILE in body, "application strings are shown as text, markup and all",
              body[:400] if HOSTILE not in body else "")
        check("<script>alert(1)" not in source and "<img src=x" not in source, "the markup is escaped in the source")


def hostile_copy(report, tmp):
    """The report with every name, context and message text replaced by markup."""
    document = json.loads(Path(report).read_text(encoding="utf-8"))
    names = {"list", "queue", "name", "context", "resource", "text", "fence", "process_name", "note", "detail",
             "deadlock", "removed_by"}

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in names and isinstance(item, str):
                    value[key] = HOSTILE + " " + key
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(document["queues"])
    walk(document["nodes"])
    walk(document["flush_messages"])
    if document.get("page_fault"):
        walk(document["page_fault"])
    document["process"]["name"] = HOSTILE
    path = Path(tmp) / "hostile.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


EXTRA_ROWS = [{"fence": "Frame fence", "value": 10, "by": "Streaming queue Signal"},
              {"fence": "Frame fence", "value": 3, "by": "CPU thread 4242 Signal"}]


def extras_copy(report, tmp):
    """The report with members this d12dred does not know: a top-level table, a queue's note, an op's sub-op."""
    document = json.loads(Path(report).read_text(encoding="utf-8"))
    document["fence_history_test"] = EXTRA_ROWS
    document["queues"][0]["queue_note_test"] = "went backwards: 10 (reached) -> 3"
    for node in document["nodes"]:
        for op in node["ops"]:
            if op["attribution"]:
                op["bundle_op_test"] = {"bundle": "Foliage bundle", "index": 2}
    path = Path(tmp) / "extras.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def check_extras(probe):
    body = probe["body"]
    check("fence_history_test" in body and "CPU thread 4242 Signal" in body, "a top-level unknown member is shown")
    check("queue_note_test" in body and "went backwards: 10 (reached) -> 3" in body, "a queue's unknown member is shown")
    if probe["target"]:
        check("bundle_op_test" in probe["target"]["text"] and "Foliage bundle" in probe["target"]["text"],
              "the faulting op's unknown member is shown under the op", probe["target"]["text"][:300])


def stall_copy(report, tmp):
    document = json.loads(Path(report).read_text(encoding="utf-8"))
    document["kind"] = "stall"
    document["reason"] = {"hresult": "0x00000000", "name": None}
    document["page_fault"] = None
    path = Path(tmp) / "stall.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def check_stall(probe):
    body, summary = probe["body"], squash(probe["summary"])
    check("reason" not in summary.split("FAULTING OP")[-1].split(), "a stall has no reason", summary[:400])
    check("Page fault" not in body, "a stall has no page-fault section")
    check("Command lists outstanding now" in body and "at removal" not in body, "a stall speaks in the present")
    check("before removal" not in body, "no value 'before removal' in a stall")


def demo_report(demo, mode, tmp):
    dump = Path(tmp) / "dump"
    dump.mkdir()
    args = [demo] + (["--hang"] if mode == "hang" else [])
    result = subprocess.run(args, capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, D12RT_DRED_DUMP=str(dump)))
    reports = sorted(dump.glob("*.json"))
    check(len(reports) == 1, f"{Path(demo).name} wrote one report", f"{reports}, exit {result.returncode}, "
          f"{result.stderr[-1000:]}")
    return reports[0] if reports else None


def main(argv):
    args = argv[1:]
    screenshot = None
    if "--screenshot" in args:
        at = args.index("--screenshot")
        screenshot = args[at + 1]
        del args[at:at + 2]
    hostile = "--hostile" in args
    extras = "--extras" in args
    stall = "--stall" in args
    args = [a for a in args if a not in ("--hostile", "--extras", "--stall")]
    chromium = find_chromium()
    if not chromium:
        print("skipped: no chromium installed (apt-get install chromium)")
        return SKIP
    d12dred = args[0]
    with tempfile.TemporaryDirectory(prefix="d12dred-html-case-") as tmp:
        if args[1] == "--demo":
            report = demo_report(args[2], args[3], tmp)
        else:
            report = Path(args[1])
            if hostile:
                report = hostile_copy(report, tmp)
            if extras:
                report = extras_copy(report, tmp)
            if stall:
                report = stall_copy(report, tmp)
        if report:
            check_page(d12dred, chromium, report, hostile, screenshot, extras, stall)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
