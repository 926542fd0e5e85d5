"""The baseline of the code-context benchmark: the same kernel driven directly by
jupyter_client (no daemon in between). Prints one JSON object.
usage: direct_kernel.py COLD_RUNS ROUND_TRIPS WARMUP IMAGE_BYTES IMAGE_RUNS"""
import base64, json, os, sys, time
import jupyter_client

cold_runs, trips, warmup, image_bytes, image_runs = (int(a) for a in sys.argv[1:6])


def run(kc, code):
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


cold = []
for _ in range(cold_runs):
    t0 = time.perf_counter()
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    run(kc, "1+1")
    cold.append((time.perf_counter() - t0) * 1000)
    kc.stop_channels()
    km.shutdown_kernel(now=True)

km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
for _ in range(warmup):
    run(kc, "1+1")
rtt = []
for _ in range(trips):
    t0 = time.perf_counter()
    run(kc, "1+1")
    rtt.append((time.perf_counter() - t0) * 1000)
run(kc, "import base64, os\nfrom IPython.display import display\n"
        f"img = base64.b64encode(os.urandom({image_bytes})).decode()")
image = []
for _ in range(image_runs):
    t0 = time.perf_counter()
    run(kc, "display({'image/png': img}, raw=True)")
    image.append((time.perf_counter() - t0) * 1000)
kc.stop_channels()
km.shutdown_kernel(now=True)
print(json.dumps({"cold_ms": cold, "rtt_ms": rtt, "image_ms": image}))
