#!/usr/bin/env python3
"""Run ctest's vulkan-labelled tests from ctest's JSON (no ctest on the lent machine): env, working dir, timeout,
PASS_REGULAR_EXPRESSION, ENVIRONMENT_MODIFICATION unset. Skips the deliberate-hang cases (the lent GPU is shared)."""
import json, os, re, subprocess, sys, time
# stuck_submission runs: its submission waits on the hook's gate, a semaphore the host opens at device destruction
# (vkdrv_stuck.c), so no GPU work is held and the NVIDIA driver's process exit no longer waits on it.
skip = re.compile(r"(\.hang\.|\.hang$|dred_demo_hang|dred_demo_html_hang|tdr_delay_env|queued_never_runs|hung_copy_named)")
# install.* build outside clients with cmake and a C compiler, which the lent machine does not have.
no_compiler = re.compile(r"^install\.")
d = json.load(open(sys.argv[1]))
passed = failed = skipped = 0
for t in d["tests"]:
    name = t["name"]
    if skip.search(name):
        skipped += 1
        print(f"SKIP {name} (deliberate hang: not on a shared GPU)")
        continue
    if no_compiler.search(name):
        skipped += 1
        print(f"SKIP {name} (builds a client: no compiler on the lent machine)")
        continue
    if not os.path.exists(t["command"][0]):
        skipped += 1
        print(f"SKIP {name} (needs {t['command'][0]}, which the lent machine does not have)")
        continue
    props = {p["name"]: p["value"] for p in t["properties"]}
    env = dict(os.environ)
    for kv in props.get("ENVIRONMENT", []):
        k, _, v = kv.partition("=")
        if k == "VK_DRIVER_FILES":
            continue  # keep the machine's ICD
        env[k] = v
    for m in props.get("ENVIRONMENT_MODIFICATION", []):
        k, _, op = m.partition("=")
        if op.startswith("unset:"):
            env.pop(k, None)
    start = time.time()
    try:
        r = subprocess.run(t["command"], cwd=props.get("WORKING_DIRECTORY"), env=env, capture_output=True, text=True,
                           timeout=min(float(props.get("TIMEOUT", 120)), 120), errors="replace")
        out = r.stdout + r.stderr
        regex = props.get("PASS_REGULAR_EXPRESSION")
        ok = any(re.search(x, out) for x in regex) if regex else r.returncode == 0
        why = f"rc={r.returncode}"
        if not ok and "SKIP_RETURN_CODE" in props and r.returncode == int(props["SKIP_RETURN_CODE"]):
            skipped += 1  # as ctest: the test said it cannot run here (e.g. no chromium on the lent machine)
            print(f"SKIP {name} (exit {r.returncode}: " + (out.strip().splitlines() or [""])[-1].strip() + ")")
            continue
    except subprocess.TimeoutExpired as e:
        ok, out, why = False, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
    dt = time.time() - start
    if ok:
        passed += 1
        print(f"PASS {name} {dt:.2f}s")
    else:
        failed += 1
        print(f"FAIL {name} {dt:.2f}s {why}\n" + "\n".join("    " + l for l in out.splitlines()[-15:]))
    sys.stdout.flush()
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
