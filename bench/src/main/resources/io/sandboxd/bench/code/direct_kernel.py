"""The baseline of the code-context benchmark: the same kernel driven directly by
jupyter_client (no daemon in between). A line-driven server, so the benchmark can interleave its
runs with the daemon's (A/B in the same minutes, under the same load): one command per line on
stdin, one JSON object per line on stdout.

  cold               start a kernel, run 1+1, shut it down        -> {"ms": float}
  start WARMUP       start the kept kernel, run 1+1 WARMUP times  -> {"ok": true}
  rtt N              N round trips of 1+1 on the kept kernel       -> {"ms": [float, ...]}
  prepare BYTES      img = base64 of BYTES random bytes            -> {"ok": true}
  image              display(img) as image/png                     -> {"ms": float}
  quit
"""
import json, sys, time
import jupyter_client


def run(kc, code):
    """Sends code; returns once both its execute_reply and its idle status came (as sandboxd does)."""
    mid = kc.execute(code, allow_stdin=False, stop_on_error=False)
    idle = reply = False
    while not (idle and reply):
        if not reply:
            try:
                r = kc.get_shell_msg(timeout=0)
                if r["parent_header"].get("msg_id") == mid:
                    reply = True
            except Exception:
                pass
        try:
            m = kc.get_iopub_msg(timeout=0.001 if not idle else 0)
        except Exception:
            continue
        if m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status" \
                and m["content"]["execution_state"] == "idle":
            idle = True


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


km = kc = None
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "cold":
        t0 = time.perf_counter()
        m, c = jupyter_client.manager.start_new_kernel(kernel_name="python3")
        run(c, "1+1")
        ms = (time.perf_counter() - t0) * 1000
        c.stop_channels()
        m.shutdown_kernel(now=True)
        answer({"ms": ms})
    elif cmd[0] == "start":
        km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
        for _ in range(int(cmd[1])):
            run(kc, "1+1")
        answer({"ok": True})
    elif cmd[0] == "rtt":
        out = []
        for _ in range(int(cmd[1])):
            t0 = time.perf_counter()
            run(kc, "1+1")
            out.append((time.perf_counter() - t0) * 1000)
        answer({"ms": out})
    elif cmd[0] == "prepare":
        run(kc, "import base64, os\nfrom IPython.display import display\n"
                f"img = base64.b64encode(os.urandom({int(cmd[1])})).decode()")
        answer({"ok": True})
    elif cmd[0] == "image":
        t0 = time.perf_counter()
        run(kc, "display({'image/png': img}, raw=True)")
        answer({"ms": (time.perf_counter() - t0) * 1000})
    elif cmd[0] == "quit":
        break
if kc is not None:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
