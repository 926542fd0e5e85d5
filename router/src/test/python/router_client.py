#!/usr/bin/python3
"""Independent client through the router: Debian's python3-grpcio against sandboxd via sandboxd-router.

Usage: router_client.py calls ROUTER_HOST:PORT DAEMON_GRPC_PORT PROTO_ROOT OUTPUT_LIMIT
       router_client.py stream ROUTER_HOST:PORT DAEMON_GRPC_PORT PROTO_ROOT BYTES SHA256 SHELL_COMMAND

calls: Execute (statuses; every trailer compared with the same call straight to the daemon, whose
--execute-output-limit is OUTPUT_LIMIT, so its truncation counts are among them), a deadline, Start,
WriteStdin to a running process, PTY Start + ResizeTTY, and a cancel that kills the process tree.
stream: one Start stream of SHELL_COMMAND, whose stdout must be BYTES bytes with this SHA256.

Every call carries the router's routing metadata (x-sandbox-id, x-sandbox-pod-ip, x-sandbox-port)
and goes over HTTP/2 cleartext with prior knowledge, as grpcio does for an insecure channel. Stubs
are generated from the repository's proto with grpc_tools (Debian ships 1.14, which predates proto3
`optional`: the keyword is stripped from a temporary copy; it changes presence tracking in generated
code only, never the wire encoding). Exits non-zero with a message on the first mismatch.
"""
import hashlib
import os
import re
import sys
import tempfile
import time

import grpc
from google.protobuf import empty_pb2
from grpc_tools import protoc


def load_stubs(proto_root):
    work = tempfile.mkdtemp(prefix="sandboxd-router-py-")
    src = os.path.join(work, "src", "process", "v1")
    out = os.path.join(work, "out")
    os.makedirs(src)
    os.makedirs(os.path.join(out, "process", "v1"))
    with open(os.path.join(proto_root, "process", "v1", "process.proto")) as f:
        text = re.sub(r"^(\s*)optional ", r"\1", f.read(), flags=re.M)
    with open(os.path.join(src, "process.proto"), "w") as f:
        f.write(text)
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    rc = protoc.main(["protoc", "-I" + os.path.join(work, "src"), "-I" + include,
                      "--python_out=" + out, "--grpc_python_out=" + out, "process/v1/process.proto"])
    if rc != 0:
        sys.exit("protoc failed: %d" % rc)
    for d in ("process", os.path.join("process", "v1")):
        open(os.path.join(out, d, "__init__.py"), "w").close()
    sys.path.insert(0, out)
    from process.v1 import process_pb2, process_pb2_grpc
    return process_pb2, process_pb2_grpc


def check(cond, what):
    if not cond:
        sys.exit("FAILED: " + what)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2] != "Z"
    except OSError:
        return False


def routing(daemon_port):
    return (("x-sandbox-id", "sb"), ("x-sandbox-pod-ip", "127.0.0.1"), ("x-sandbox-port", daemon_port))


def stream(target, daemon_port, pb, pbg, size, sha256, command):
    md = routing(daemon_port)
    with grpc.insecure_channel(target) as ch:
        stub = pbg.ProcessServiceStub(ch)
        h = hashlib.sha256()
        n = 0
        exit_code = None
        for e in stub.Start(pb.StartRequest(config=pb.ProcessConfig(command=["sh", "-c", command])),
                            timeout=600, metadata=md):
            kind = e.WhichOneof("event")
            if kind == "stdout":
                h.update(e.stdout)
                n += len(e.stdout)
            elif kind == "exit":
                exit_code = e.exit.exit_code
        check(exit_code == 0, "stream exit %r" % exit_code)
        check(n == size, "stream of %d bytes, expected %d" % (n, size))
        check(h.hexdigest() == sha256, "stream sha256 %s, expected %s" % (h.hexdigest(), sha256))


def calls(target, daemon_port, pb, pbg, output_limit):
    md = routing(daemon_port)
    with grpc.insecure_channel(target) as ch, grpc.insecure_channel("127.0.0.1:" + daemon_port) as direct_ch:
        stub = pbg.ProcessServiceStub(ch)
        direct = pbg.ProcessServiceStub(direct_ch)

        r = stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig(
            command=["/bin/sh", "-c", "echo hello; echo oops 1>&2; exit 3"])), timeout=60, metadata=md)
        check(r.exit_code == 3, "execute exit_code %d" % r.exit_code)
        check(r.stdout == b"hello\n" and r.stderr == b"oops\n", "execute output %r %r" % (r.stdout, r.stderr))

        # Trailers: the daemon's truncation counts (and whatever else it sends) arrive as sent.
        big = pb.ExecuteRequest(config=pb.ProcessConfig(command=["sh", "-c",
            "head -c 5000 /dev/zero | tr '\\000' a; head -c 3000 /dev/zero | tr '\\000' b 1>&2"]))
        routed, routed_call = stub.Execute.with_call(big, timeout=60, metadata=md)
        straight, straight_call = direct.Execute.with_call(big, timeout=60)
        check(routed == straight, "truncated execute differs from direct")
        routed_trailers = sorted(routed_call.trailing_metadata())
        check(routed_trailers == sorted(straight_call.trailing_metadata()),
              "trailers %r, direct %r" % (routed_trailers, sorted(straight_call.trailing_metadata())))
        check(("sandboxd-stdout-truncated-bytes", str(5000 - output_limit)) in routed_trailers,
              "stdout truncation trailer in %r" % routed_trailers)
        check(("sandboxd-stderr-truncated-bytes", str(3000 - output_limit)) in routed_trailers,
              "stderr truncation trailer in %r" % routed_trailers)

        # The caller's deadline (grpc-timeout) holds through the router.
        t0 = time.time()
        try:
            stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig(command=["sleep", "30"])), timeout=1, metadata=md)
            check(False, "sleep 30 finished within a 1 s deadline")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, "deadline gave %s" % e.code())
        check(time.time() - t0 < 10, "deadline took %.1f s" % (time.time() - t0))

        try:
            stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig()), timeout=60, metadata=md)
            check(False, "empty command accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "empty command gave %s" % e.code())

        try:
            stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig(command=["true"])), timeout=60)
            check(False, "call without routing metadata accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "no routing gave %s" % e.code())
            check(e.details() == "X-Sandbox-ID header is required.", "no routing said %r" % e.details())

        events = list(stub.Start(pb.StartRequest(config=pb.ProcessConfig(
            command=["sh", "-c", "echo out; echo err 1>&2; exit 7"])), timeout=60, metadata=md))
        kinds = [e.WhichOneof("event") for e in events]
        check(kinds[0] == "init" and kinds[-1] == "exit" and events[-1].exit.exit_code == 7, "start events %r" % kinds)
        check(b"".join(e.stdout for e in events) == b"out\n", "start stdout")
        check(b"".join(e.stderr for e in events) == b"err\n", "start stderr")

        stream = stub.Start(pb.StartRequest(config=pb.ProcessConfig(command=["cat"])), timeout=60, metadata=md)
        pid = next(stream).init.process_id
        stub.WriteStdin(pb.WriteStdinRequest(process_id=pid, input=b"from-python"), timeout=30, metadata=md)
        stub.WriteStdin(pb.WriteStdinRequest(process_id=pid, eof=empty_pb2.Empty()), timeout=30, metadata=md)
        rest = list(stream)
        check(b"".join(e.stdout for e in rest) == b"from-python", "cat output")
        check(rest[-1].exit.exit_code == 0, "cat exit")

        stream = stub.Start(pb.StartRequest(config=pb.ProcessConfig(command=["sh", "-c", "read x; stty size"]),
                                            pty=pb.PTY(cols=80, rows=24)), timeout=60, metadata=md)
        pid = next(stream).init.process_id
        stub.ResizeTTY(pb.ResizeTTYRequest(process_id=pid, cols=100, rows=30), timeout=30, metadata=md)
        stub.WriteStdin(pb.WriteStdinRequest(process_id=pid, input=b"\n"), timeout=30, metadata=md)
        out = b"".join(e.stdout for e in stream)
        check(b"30 100" in out, "pty size after resize %r" % out)

        # Cancel: the daemon must see the reset through the router and kill the tree.
        stream = stub.Start(pb.StartRequest(config=pb.ProcessConfig(
            command=["sh", "-c", "echo $$; sleep 300 & echo $!; wait"])), timeout=120, metadata=md)
        text = b""
        for e in stream:
            text += e.stdout
            if text.count(b"\n") >= 2:
                break
        pids = [int(x) for x in text.split()[:2]]
        check(all(alive(p) for p in pids), "processes %r running" % pids)
        stream.cancel()
        deadline = time.time() + 20
        while any(alive(p) for p in pids) and time.time() < deadline:
            time.sleep(0.05)
        check(not any(alive(p) for p in pids), "processes %r killed after cancel" % pids)


def main():
    mode, target, daemon_port, proto_root = sys.argv[1:5]
    pb, pbg = load_stubs(proto_root)
    if mode == "calls":
        calls(target, daemon_port, pb, pbg, int(sys.argv[5]))
    elif mode == "stream":
        stream(target, daemon_port, pb, pbg, int(sys.argv[5]), sys.argv[6], sys.argv[7])
    else:
        sys.exit("unknown mode " + mode)
    print("python client through the router OK: " + mode)


if __name__ == "__main__":
    main()
