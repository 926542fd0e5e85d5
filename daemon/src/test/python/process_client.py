#!/usr/bin/python3
"""Independent client check: Debian's python3-grpcio against a running sandboxd.

Usage: process_client.py HOST:PORT PROTO_ROOT

Generates stubs from the repository's proto with grpc_tools (Debian ships 1.14, which predates
proto3 `optional`; the keyword is stripped from a temporary copy: it changes presence tracking in
generated code only, never the wire encoding), then runs Execute and Start the way the upstream
Python SDK and grpcurl users do. Exits non-zero with a message on the first mismatch.
"""
import os
import re
import sys
import tempfile

import grpc
from google.protobuf import empty_pb2
from grpc_tools import protoc


def load_stubs(proto_root):
    work = tempfile.mkdtemp(prefix="sandboxd-py-")
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


def main():
    target, proto_root = sys.argv[1], sys.argv[2]
    pb, pbg = load_stubs(proto_root)
    with grpc.insecure_channel(target) as ch:
        stub = pbg.ProcessServiceStub(ch)

        # Execute, as the upstream Python SDK calls it.
        r = stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig(
            command=["/bin/sh", "-c", "echo hello; echo oops 1>&2; exit 3"])), timeout=60)
        check(r.exit_code == 3, "execute exit_code %d" % r.exit_code)
        check(r.stdout == b"hello\n", "execute stdout %r" % r.stdout)
        check(r.stderr == b"oops\n", "execute stderr %r" % r.stderr)

        r = stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig(
            command=["sh", "-c", "echo $GREETING; pwd"], env_vars={"GREETING": "hi"})), timeout=60)
        check(r.stdout.decode().split("\n")[0] == "hi", "execute env %r" % r.stdout)

        try:
            stub.Execute(pb.ExecuteRequest(config=pb.ProcessConfig()), timeout=60)
            check(False, "empty command accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "empty command gave %s" % e.code())

        # Start: init first, output, exit last, status OK.
        events = list(stub.Start(pb.StartRequest(config=pb.ProcessConfig(
            command=["sh", "-c", "echo out; echo err 1>&2; exit 7"])), timeout=60))
        kinds = [e.WhichOneof("event") for e in events]
        check(kinds[0] == "init" and events[0].init.process_id > 0, "start first event %r" % kinds)
        check(kinds[-1] == "exit" and events[-1].exit.exit_code == 7, "start last event %r" % events[-1])
        check(b"".join(e.stdout for e in events) == b"out\n", "start stdout")
        check(b"".join(e.stderr for e in events) == b"err\n", "start stderr")

        # Start + WriteStdin + eof with cat.
        stream = stub.Start(pb.StartRequest(config=pb.ProcessConfig(command=["cat"])), timeout=60)
        first = next(stream)
        pid = first.init.process_id
        stub.WriteStdin(pb.WriteStdinRequest(process_id=pid, input=b"from-python"), timeout=30)
        stub.WriteStdin(pb.WriteStdinRequest(process_id=pid, eof=empty_pb2.Empty()), timeout=30)
        rest = list(stream)
        check(b"".join(e.stdout for e in rest) == b"from-python", "cat output")
        check(rest[-1].exit.exit_code == 0, "cat exit")

        # PTY: the size is in place before the program runs.
        events = list(stub.Start(pb.StartRequest(config=pb.ProcessConfig(command=["stty", "size"]),
                                                 pty=pb.PTY(cols=80, rows=24)), timeout=60))
        check(b"".join(e.stdout for e in events).strip() == b"24 80", "pty stty size")
    print("python client OK")


if __name__ == "__main__":
    main()
