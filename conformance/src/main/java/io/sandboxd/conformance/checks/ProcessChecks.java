package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Expect.utf8;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Message;
import io.grpc.Status;
import io.grpc.Status.Code;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessProto;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.Command;
import io.sandboxd.client.ExecResult;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Paths;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** Checks of runtime-contract §1.1–§1.4: wire shape, command construction, Start and Execute. */
public final class ProcessChecks {
    /** An id no runtime hands out within a conformance run. */
    static final int UNKNOWN_ID = 2_000_000_007;

    static final Duration END = Duration.ofSeconds(20);

    private ProcessChecks() {}

    /** SendSignal with a raw signal number, so invalid values can be sent too. */
    static SendSignalRequest signal(int pid, int signal) {
        return SendSignalRequest.newBuilder()
                .setProcessId(pid)
                .setSignalValue(signal)
                .build();
    }

    /** Execute exactly this config (e.g. one without a command). */
    static ExecuteRequest exec(ProcessConfig config) {
        return ExecuteRequest.newBuilder().setConfig(config).build();
    }

    /** Start exactly this config (e.g. one without a command). */
    static StartRequest startOf(ProcessConfig config) {
        return StartRequest.newBuilder().setConfig(config).build();
    }

    public static void register(Map<CheckId, Check> m) {
        m.put(PROC_WIRE_001, ProcessChecks::wire001);
        m.put(PROC_WIRE_002, ProcessChecks::wire002);
        m.put(PROC_WIRE_003, ProcessChecks::wire003);
        m.put(PROC_WIRE_004, ProcessChecks::wire004);
        m.put(PROC_WIRE_005, ProcessChecks::wire005);
        m.put(PROC_CMD_001, ProcessChecks::cmd001);
        m.put(PROC_CMD_002, ProcessChecks::cmd002);
        m.put(PROC_CMD_003, ProcessChecks::cmd003);
        m.put(PROC_CMD_004, ProcessChecks::cmd004);
        m.put(PROC_CMD_005, ProcessChecks::cmd005);
        m.put(PROC_CMD_006, ProcessChecks::cmd006);
        m.put(PROC_CMD_007, ProcessChecks::cmd007);
        m.put(PROC_CMD_008, ProcessChecks::cmd008);
        m.put(PROC_CMD_009, ProcessChecks::cmd009);
        m.put(PROC_CMD_010, ProcessChecks::cmd010);
        m.put(PROC_CMD_011, ProcessChecks::cmd011);
        m.put(PROC_CWD_001, ProcessChecks::cwd001);
        m.put(PROC_CWD_002, ProcessChecks::cwd002);
        m.put(PROC_CWD_003, ProcessChecks::cwd003);
        m.put(PROC_CWD_004, ProcessChecks::cwd004);
        m.put(PROC_CWD_005, ProcessChecks::cwd005);
        m.put(PROC_CWD_006, ProcessChecks::cwd006);
        m.put(PROC_CWD_007, ProcessChecks::cwd007);
        m.put(PROC_CWD_008, ProcessChecks::cwd008);
        m.put(PROC_START_001, ProcessChecks::start001);
        m.put(PROC_START_002, ProcessChecks::start002);
        m.put(PROC_START_003, ProcessChecks::start003);
        m.put(PROC_START_004, ProcessChecks::start004);
        m.put(PROC_START_005, ProcessChecks::start005);
        m.put(PROC_START_006, ProcessChecks::start006);
        m.put(PROC_START_007, ProcessChecks::start007);
        m.put(PROC_START_008, ProcessChecks::start008);
        m.put(PROC_START_009, ProcessChecks::start009);
        m.put(PROC_START_010, ProcessChecks::start010);
        m.put(PROC_START_011, ProcessChecks::start011);
        m.put(PROC_START_012, ctx -> killGroupOnStreamEnd(ctx, true));
        m.put(PROC_START_013, ctx -> killGroupOnStreamEnd(ctx, false));
        m.put(PROC_START_014, ProcessChecks::start014);
        m.put(PROC_EXEC_001, ProcessChecks::exec001);
        m.put(PROC_EXEC_002, ProcessChecks::exec002);
        m.put(PROC_EXEC_003, ProcessChecks::exec003);
        m.put(PROC_EXEC_004, ProcessChecks::exec004);
        m.put(PROC_EXEC_005, ProcessChecks::exec005);
        m.put(PROC_EXEC_006, ProcessChecks::exec006);
    }

    // ---- §1.1 wire shape ----

    static void wire001(CheckContext ctx) throws Exception {
        List<String> missing = new ArrayList<>();
        Status ex = Expect.statusOf(() -> ctx.client().execute(Command.of("true")));
        if (ex.getCode() == Code.UNIMPLEMENTED) {
            missing.add("Execute: " + Expect.describe(ex));
        }
        StartRecorder st = ctx.start(Command.of("true"));
        st.awaitEnd(END);
        if (st.status() != null && st.status().getCode() == Code.UNIMPLEMENTED) {
            missing.add("Start: " + st.describe());
        }
        for (Status r : List.of(
                Expect.statusOf(() -> ctx.client().writeStdin(UNKNOWN_ID, new byte[] {1})),
                Expect.statusOf(() -> ctx.client().sendSignal(signal(UNKNOWN_ID, 15))),
                Expect.statusOf(() -> ctx.client().resizeTty(UNKNOWN_ID, 80, 24)))) {
            if (r.getCode() == Code.UNIMPLEMENTED) {
                missing.add(Expect.describe(r));
            }
        }
        Expect.that(missing.isEmpty(), "methods not served under /process.v1.ProcessService/*: " + missing);
    }

    static void wire002(CheckContext ctx) throws Exception {
        List<String> extra = new ArrayList<>();
        ExecResult ex =
                Expect.ok(() -> ctx.client().execute(Command.shell("echo out; echo err >&2; exit 3")), "Execute");
        unknown(extra, "ExecuteResponse", ex.response());
        StartRecorder st = ctx.start(Command.shell("cat").tty(80, 24), Duration.ofSeconds(30));
        int pid = ctx.init(st);
        // The client's own calls return nothing for the empty responses: a raw stub shows them.
        ProcessServiceGrpc.ProcessServiceBlockingStub stub =
                ProcessServiceGrpc.newBlockingStub(ctx.client().channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
        Message resize = Expect.ok(
                () -> stub.resizeTTY(ResizeTTYRequest.newBuilder()
                        .setProcessId(pid)
                        .setCols(100)
                        .setRows(30)
                        .build()),
                "ResizeTTY on a pty process");
        unknown(extra, "ResizeTTYResponse", resize);
        Message write = Expect.ok(
                () -> stub.writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(pid)
                        .setInput(com.google.protobuf.ByteString.copyFrom(utf8("x\n")))
                        .build()),
                "WriteStdin");
        unknown(extra, "WriteStdinResponse", write);
        Message sig = Expect.ok(() -> stub.sendSignal(signal(pid, 9)), "SendSignal SIGKILL");
        unknown(extra, "SendSignalResponse", sig);
        ctx.end(st, END);
        for (StartRecorder.Event e : st.events()) {
            unknown(extra, "StartResponse", e.message());
            if (e.message().hasInit()) {
                unknown(extra, "InitEvent", e.message().getInit());
            }
            if (e.message().hasExit()) {
                unknown(extra, "ExitEvent", e.message().getExit());
            }
        }
        Expect.that(
                extra.isEmpty(), "responses carry fields that are not in the upstream proto (field numbers): " + extra);
    }

    private static void unknown(List<String> out, String what, Message m) {
        if (m != null && !m.getUnknownFields().asMap().isEmpty()) {
            out.add(what + " " + m.getUnknownFields().asMap().keySet());
        }
    }

    static void wire003(CheckContext ctx) throws Exception {
        List<FileDescriptorProto> files;
        try {
            files = Reflection.filesContaining(ctx.client().channel(), "process.v1.ProcessService");
        } catch (io.grpc.StatusRuntimeException e) {
            if (e.getStatus().getCode() == Code.UNIMPLEMENTED) {
                throw new CheckSkipped(
                        "the runtime serves no gRPC server reflection, so its descriptor cannot be compared (see PROC-WIRE-005)");
            }
            throw fail("reflection request for symbol process.v1.ProcessService failed: " + e.getStatus());
        }
        FileDescriptorProto served = files.stream()
                .filter(f ->
                        f.getServiceList().stream().anyMatch(s -> s.getName().equals("ProcessService"))
                                && f.getPackage().equals("process.v1"))
                .findFirst()
                .orElseThrow(() -> fail("reflection returned no file declaring process.v1.ProcessService; got "
                        + files.stream().map(FileDescriptorProto::getName).toList()));
        TreeSet<String> want = Reflection.wireFacts(ProcessProto.getDescriptor().toProto());
        TreeSet<String> got = Reflection.wireFacts(served);
        TreeSet<String> missing = new TreeSet<>(want);
        missing.removeAll(got);
        TreeSet<String> unexpected = new TreeSet<>(got);
        unexpected.removeAll(want);
        Expect.that(
                missing.isEmpty() && unexpected.isEmpty(),
                "served descriptor " + served.getName() + " differs from upstream process/v1/process.proto; missing: "
                        + missing + "; not in upstream: " + unexpected);
    }

    static void wire004(CheckContext ctx) {
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ctx.client().channel())
                    .withDeadlineAfter(20, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService("").build());
            Expect.equal(
                    "grpc.health.v1.Health/Check(service \"\") status",
                    HealthCheckResponse.ServingStatus.SERVING,
                    r.getStatus());
        } catch (io.grpc.StatusRuntimeException e) {
            throw fail("grpc.health.v1.Health/Check(service \"\"): expected SERVING, got gRPC status " + e.getStatus());
        }
    }

    static void wire005(CheckContext ctx) throws Exception {
        List<String> services;
        try {
            services = Reflection.services(ctx.client().channel());
        } catch (io.grpc.StatusRuntimeException e) {
            throw fail("grpc.reflection.v1(alpha).ServerReflection list_services: expected a service list, got "
                    + e.getStatus());
        }
        Expect.that(
                services.contains("process.v1.ProcessService") && services.contains("grpc.health.v1.Health"),
                "reflection list_services: expected process.v1.ProcessService and grpc.health.v1.Health, got "
                        + services);
    }

    // ---- §1.2 command construction ----

    static void cmd001(CheckContext ctx) {
        Expect.grpc(
                () -> ctx.client().withCallTimeout(Duration.ofSeconds(20)).execute(ExecuteRequest.getDefaultInstance()),
                Code.INVALID_ARGUMENT,
                "Execute without config");
        Expect.grpc(
                () -> ctx.client()
                        .execute(exec(
                                ProcessConfig.newBuilder().putEnvVars("A", "b").build())),
                Code.INVALID_ARGUMENT,
                "Execute with an empty command");
    }

    static void cmd002(CheckContext ctx) throws Exception {
        StartRecorder st =
                ctx.start(startOf(ProcessConfig.newBuilder().setCwd("").build()), Duration.ofSeconds(20));
        ctx.end(st, END);
        Expect.that(
                st.status().getCode() == Code.INVALID_ARGUMENT && st.events().isEmpty(),
                "Start with an empty command: expected status INVALID_ARGUMENT and no events, got " + st.describe());
    }

    static void cmd003(CheckContext ctx) {
        ExecResult r = Expect.ok(
                () -> ctx.client().execute(Command.of("printf", "%s|", "a b", "$HOME", "*", ";echo x", "'q'")),
                "Execute [printf ...]");
        Expect.equal(
                "stdout of Execute [\"printf\", \"%s|\", \"a b\", \"$HOME\", \"*\", \";echo x\", \"'q'\"] (no shell may expand anything)",
                "a b|$HOME|*|;echo x|'q'|", r.stdout().toStringUtf8());
    }

    static void cmd004(CheckContext ctx) {
        Map<String, String> daemon = ctx.suite().daemonEnv();
        ExecResult r = Expect.ok(
                () -> ctx.client().execute(Command.of("env", "-0").env("CONFORMANCE_ADDED", "added-value")),
                "Execute [env -0] with env_vars {CONFORMANCE_ADDED}");
        Map<String, String> child = parseEnv(r.stdout().toString(StandardCharsets.UTF_8));
        Expect.equal("CONFORMANCE_ADDED in the child environment", "added-value", child.get("CONFORMANCE_ADDED"));
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, String> e : daemon.entrySet()) {
            if (!Set.of("PWD", "OLDPWD", "SHLVL", "_").contains(e.getKey())
                    && !e.getValue().equals(child.get(e.getKey()))) {
                lost.add(e.getKey());
            }
        }
        Expect.that(
                lost.isEmpty(),
                "with env_vars set, these daemon variables disappeared or changed in the child: " + lost);
    }

    static Map<String, String> parseEnv(String nulSeparated) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (String kv : nulSeparated.split("\0")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return env;
    }

    static void cmd005(CheckContext ctx) {
        Map<String, String> daemon = ctx.suite().daemonEnv();
        String var = daemon.containsKey("HOME")
                ? "HOME"
                : daemon.keySet().stream()
                        .filter(k -> !Set.of("PATH", "PWD", "SHLVL", "_").contains(k))
                        .findFirst()
                        .orElseThrow(() -> new CheckSkipped(
                                "the daemon environment has no variable besides PATH/PWD to override"));
        ExecResult r = Expect.ok(
                () -> ctx.client().execute(Command.of("printenv", var).env(var, "conformance-override")),
                "Execute [printenv " + var + "]");
        Expect.equal(
                "printenv " + var + " with env_vars {" + var + ": conformance-override} (daemon value "
                        + Expect.excerpt(daemon.get(var), 60) + ")",
                "conformance-override\n",
                r.stdout().toStringUtf8());
    }

    static void cmd006(CheckContext ctx) {
        String dir = ctx.mkdir();
        String want = join(ctx.suite().rootAbs(), dir) + "\n";
        ExecResult plain = Expect.ok(
                () -> ctx.client().execute(Command.of("printenv", "PWD").cwd(dir)),
                "Execute [printenv PWD] cwd " + dir);
        Expect.equal("PWD with cwd \"" + dir + "\"", want, plain.stdout().toStringUtf8());
        ExecResult env = Expect.ok(
                () -> ctx.client()
                        .execute(Command.of("printenv", "PWD").cwd(dir).env("CONFORMANCE", "1")),
                "Execute [printenv PWD] cwd " + dir + " with env_vars");
        Expect.equal(
                "PWD with cwd \"" + dir + "\" and non-empty env_vars",
                want,
                env.stdout().toStringUtf8());
    }

    static String join(String rootAbs, String rel) {
        return rootAbs.endsWith("/") ? rootAbs + rel : rootAbs + "/" + rel;
    }

    static void cmd007(CheckContext ctx) throws Exception {
        Expect.grpc(
                () -> ctx.client().execute(Command.of("conformance-no-such-binary-7f3a")),
                Code.NOT_FOUND,
                "Execute [conformance-no-such-binary-7f3a]");
        Expect.grpc(
                () -> ctx.client().execute(Command.of("/conformance/no/such/binary")),
                Code.NOT_FOUND,
                "Execute [/conformance/no/such/binary]");
        StartRecorder st = ctx.start(Command.of("conformance-no-such-binary-7f3a"));
        ctx.end(st, END);
        Expect.that(
                st.status().getCode() == Code.NOT_FOUND,
                "Start [conformance-no-such-binary-7f3a]: expected the stream to end with NOT_FOUND, got "
                        + st.describe());
    }

    static void cmd008(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("noexec.sh"), utf8("#!/bin/sh\necho should-not-run\n"));
        ctx.sh("chmod 0644 " + Paths.q(ctx.path("noexec.sh")));
        String bin = join(ctx.suite().rootAbs(), ctx.path("noexec.sh"));
        Expect.grpc(
                () -> ctx.client().execute(Command.of(bin)),
                Code.PERMISSION_DENIED,
                "Execute [" + bin + "] (mode 0644)");
        StartRecorder st = ctx.start(Command.of(bin));
        ctx.end(st, END);
        Expect.that(
                st.status().getCode() == Code.PERMISSION_DENIED,
                "Start [" + bin + "] (mode 0644): expected the stream to end with PERMISSION_DENIED, got "
                        + st.describe());
    }

    static void cmd009(CheckContext ctx) throws Exception {
        String root = ctx.suite().rootAbs();
        String dir = ctx.mkdir();
        String outside = Fixtures.outsideTarget(root);
        ctx.sh("ln -s " + Paths.q(outside) + " " + Paths.q(ctx.path("out")));
        List<String[]> cases = List.of(
                new String[] {"cwd \"../..\"", "../..", "pwd"},
                new String[] {"cwd through a symlink to " + outside, ctx.path("out"), "pwd"},
                new String[] {"missing binary", null, "conformance-no-such-binary-7f3a"},
                new String[] {"missing cwd", ctx.path("missing"), "pwd"});
        List<String> leaks = new ArrayList<>();
        for (String[] c : cases) {
            Command cmd = c[1] == null ? Command.of(c[2]) : Command.of(c[2]).cwd(c[1]);
            Status r = Expect.statusOf(() -> ctx.client().execute(cmd));
            Expect.that(!r.isOk(), c[0] + ": expected an error status, got OK");
            String msg = r.getDescription() == null ? "" : r.getDescription();
            String leak = Fixtures.leakedPath(msg, root, c[1] == null ? c[2] : c[1]);
            if (leak != null) {
                leaks.add(c[0] + " -> " + Expect.describe(r) + " reveals " + leak);
            }
        }
        Expect.that(leaks.isEmpty(), "error messages reveal host paths outside the root " + root + ": " + leaks);
    }

    static final String PGRP_SCRIPT = "read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo \"$$ $pgrp\"";

    static void cmd010(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell(PGRP_SCRIPT));
        ctx.end(st, END);
        String[] f = st.stdoutText().trim().split(" ");
        Expect.that(
                f.length == 2 && f[0].equals(f[1]),
                "Start: the process must lead its own process group (pid == pgrp); `" + PGRP_SCRIPT + "` printed "
                        + Expect.excerpt(st.stdoutText(), 80) + " in " + st.describe());
    }

    static void cmd011(CheckContext ctx) {
        ExecResult r = Expect.ok(() -> ctx.client().execute(Command.shell(PGRP_SCRIPT)), "Execute");
        String out = r.stdout().toStringUtf8();
        String[] f = out.trim().split(" ");
        Expect.that(
                f.length == 2 && f[0].equals(f[1]),
                "Execute: the process must lead its own process group (pid == pgrp); `" + PGRP_SCRIPT + "` printed "
                        + Expect.excerpt(out, 80));
    }

    static void cwd001(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("marker.txt"), utf8("root-marker"));
        for (String cwd : new String[] {null, ""}) {
            Command cat = Command.of("cat", ctx.path("marker.txt"));
            Command cmd = cwd == null ? cat : cat.cwd(cwd);
            String what =
                    "Execute [cat " + ctx.path("marker.txt") + "] with " + (cwd == null ? "cwd unset" : "cwd \"\"");
            ExecResult r = Expect.ok(() -> ctx.client().execute(cmd), what);
            Expect.equal(
                    what + " (file written by PUT /v1/files/" + ctx.path("marker.txt") + "): stdout",
                    "root-marker",
                    r.stdout().toStringUtf8());
        }
    }

    static void cwdCat(CheckContext ctx, String cwd) throws Exception {
        ctx.putFixture(ctx.path("sub/m.txt"), utf8("in-sub"));
        ExecResult r = Expect.ok(
                () -> ctx.client().execute(Command.of("cat", "m.txt").cwd(cwd)),
                "Execute [cat m.txt] with cwd \"" + cwd + "\"");
        Expect.equal(
                "Execute [cat m.txt] with cwd \"" + cwd + "\" where PUT wrote " + ctx.path("sub/m.txt") + ": stdout",
                "in-sub",
                r.stdout().toStringUtf8());
    }

    static void cwd002(CheckContext ctx) throws Exception {
        cwdCat(ctx, ctx.path("sub"));
    }

    static void cwd003(CheckContext ctx) throws Exception {
        cwdCat(ctx, "/" + ctx.path("sub"));
    }

    static void cwd004(CheckContext ctx) throws Exception {
        cwdCat(ctx, join(ctx.suite().rootAbs(), ctx.path("sub")));
    }

    static void cwd005(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        String dir = ctx.mkdir();
        for (String cwd : new String[] {"..", "../..", dir + "/../../.."}) {
            Expect.grpc(
                    () -> ctx.client().execute(Command.of("pwd").cwd(cwd)),
                    Code.PERMISSION_DENIED,
                    "Execute [pwd] with cwd \"" + cwd + "\"");
        }
        absoluteDotDotStaysInside(ctx, "/../..");
        StartRecorder st = ctx.start(Command.of("pwd").cwd("../.."), END);
        ctx.end(st, END);
        Expect.that(
                st.status().getCode() == Code.PERMISSION_DENIED,
                "Start [pwd] with cwd \"../..\": expected PERMISSION_DENIED, got " + st.describe());
    }

    /**
     * An absolute cwd is re-rooted at the sandbox root, and re-rooting may clean {@code /../..} to
     * the root itself: nothing escapes, so refusing it (PERMISSION_DENIED) and running in the same
     * directory as cwd "/" are both allowed. Only running anywhere else is an escape.
     */
    private static void absoluteDotDotStaysInside(CheckContext ctx, String cwd) {
        String what = "Execute [pwd] with cwd \"" + cwd + "\"";
        ExecResult[] r = new ExecResult[1];
        Status s = Expect.statusOf(
                () -> r[0] = ctx.client().execute(Command.of("pwd").cwd(cwd)));
        if (s.getCode() == Code.PERMISSION_DENIED) {
            return;
        }
        Expect.grpc(s, Code.OK, what + " (PERMISSION_DENIED, or OK in the root)");
        ExecResult atRoot =
                Expect.ok(() -> ctx.client().execute(Command.of("pwd").cwd("/")), "Execute [pwd] with cwd \"/\"");
        Expect.equal(
                what + " ran outside the root: its pwd, compared with cwd \"/\"'s",
                atRoot.stdout().toStringUtf8(),
                r[0].stdout().toStringUtf8());
    }

    static void cwd006(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        ctx.mkdir();
        String outside = Fixtures.outsideTarget(ctx.suite().rootAbs());
        ctx.sh("ln -s " + Paths.q(outside) + " " + Paths.q(ctx.path("out")));
        Expect.grpc(
                () -> ctx.client().execute(Command.of("pwd").cwd(ctx.path("out"))),
                Code.PERMISSION_DENIED,
                "Execute [pwd] with cwd \"" + ctx.path("out") + "\" (a symlink to " + outside + ")");
    }

    static void cwd007(CheckContext ctx) {
        String cwd = ctx.path("no-such-dir-x9");
        Status r = Expect.grpc(
                () -> ctx.client().execute(Command.of("printenv", "HOME").cwd(cwd)),
                Code.NOT_FOUND,
                "Execute [printenv HOME] with missing cwd \"" + cwd + "\"");
        String msg = r.getDescription() == null ? "" : r.getDescription();
        Expect.that(
                msg.contains("no-such-dir-x9") && !msg.contains("printenv"),
                "Execute with missing cwd \"" + cwd
                        + "\": the NOT_FOUND message must name the cwd and not blame the binary, got "
                        + Expect.describe(r));
    }

    static void cwd008(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("afile.txt"), utf8("x"));
        Expect.grpc(
                () -> ctx.client().execute(Command.of("pwd").cwd(ctx.path("afile.txt"))),
                Code.INVALID_ARGUMENT,
                "Execute [pwd] with cwd \"" + ctx.path("afile.txt") + "\" (a regular file)");
    }

    // ---- §1.3 Start ----

    static void start001(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("echo hi"));
        ctx.init(st);
    }

    static void start002(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("echo out; echo err >&2; exit 7"));
        ctx.end(st, END);
        List<StartRecorder.Event> ev = st.events();
        long inits = ev.stream().filter(e -> e.message().hasInit()).count();
        long exits = ev.stream().filter(e -> e.message().hasExit()).count();
        Expect.that(
                st.status().isOk()
                        && inits == 1
                        && exits == 1
                        && !ev.isEmpty()
                        && ev.get(0).message().hasInit()
                        && ev.get(ev.size() - 1).message().hasExit(),
                "Start [sh -c 'echo out; echo err >&2; exit 7']: expected init, output events, exit as the last message, then status OK; got "
                        + st.describe());
    }

    static void start003(CheckContext ctx) throws Exception {
        for (int code : new int[] {0, 7, 255}) {
            StartRecorder st = ctx.start(Command.shell("exit " + code));
            ctx.end(st, END);
            Expect.that(
                    Integer.valueOf(code).equals(st.exitCode()),
                    "Start [sh -c 'exit " + code + "']: expected exit{exit_code=" + code + "}, got " + st.describe());
        }
    }

    static void start004(CheckContext ctx) throws Exception {
        List<StartRecorder> streams = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            StartRecorder st = ctx.start(Command.of("true"));
            ctx.end(st, END);
            streams.add(st);
        }
        List<StartRecorder> concurrent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            concurrent.add(ctx.start(Command.of("true")));
        }
        for (StartRecorder st : concurrent) {
            ctx.end(st, END);
        }
        streams.addAll(concurrent);
        Set<Integer> seen = new HashSet<>();
        List<Integer> ids = new ArrayList<>();
        for (StartRecorder st : streams) {
            List<StartRecorder.Event> ev = st.events();
            int id = !ev.isEmpty() && ev.get(0).message().hasInit()
                    ? ev.get(0).message().getInit().getProcessId()
                    : 0;
            ids.add(id);
            Expect.that(id > 0, "Start [true]: expected init{process_id > 0}, got " + st.describe());
            seen.add(id);
        }
        Expect.that(
                seen.size() == ids.size(),
                "process ids of 9 Starts (3 sequential, 6 concurrent) must all differ, got " + ids);
    }

    static void start005(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("cat"));
        int pid = ctx.init(st);
        Expect.ok(() -> ctx.client().writeStdin(pid, utf8("early")), "WriteStdin right after init");
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof right after init");
        ctx.end(st, END);
        Expect.that(
                "early".equals(st.stdoutText()) && Integer.valueOf(0).equals(st.exitCode()),
                "Start [cat], input \"early\" and eof sent as soon as init arrived: expected stdout \"early\" and exit 0, got "
                        + st.describe());
        // A signal sent in the instant after init must not be lost (e.g. sent to a process group the
        // child has not created yet). The race is narrow: 8 concurrent attempts make it visible.
        int attempts = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(attempts);
        try {
            List<java.util.concurrent.Future<StartRecorder>> started = new ArrayList<>();
            for (int i = 0; i < attempts; i++) {
                started.add(pool.submit(() -> {
                    StartRecorder sl = ctx.start(Command.of("sleep", "30"));
                    int pid2 = ctx.init(sl);
                    Expect.ok(() -> ctx.client().sendSignal(signal(pid2, 9)), "SendSignal SIGKILL right after init");
                    return sl;
                }));
            }
            for (java.util.concurrent.Future<StartRecorder> f : started) {
                StartRecorder sl;
                try {
                    sl = f.get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e.getCause());
                }
                Expect.that(
                        sl.awaitEnd(Duration.ofSeconds(10)),
                        "Start [sleep 30] with SendSignal SIGKILL as soon as init arrived ("
                                + attempts
                                + " concurrent attempts): expected the process to die and the stream to end within 10 s, got "
                                + sl.describe()
                                + ". The signal was lost: it must reach the process even when sent right after init");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static void start006(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("printf 'a\\000\\377\\001b'; printf 'E\\000\\376' >&2"));
        ctx.end(st, END);
        Expect.bytes(
                "Start stdout events of printf 'a\\000\\377\\001b' (" + st.describe() + ")",
                new byte[] {'a', 0, (byte) 0xff, 1, 'b'},
                st.stdout());
        Expect.bytes(
                "Start stderr events of printf 'E\\000\\376' >&2 (" + st.describe() + ")",
                new byte[] {'E', 0, (byte) 0xfe},
                st.stderr());
    }

    static void start007(CheckContext ctx) throws Exception {
        int n = 3000;
        StartRecorder st = ctx.start(
                Command.shell("i=0; while [ $i -lt " + n + " ]; do echo o$i; echo e$i >&2; i=$((i+1)); done"));
        ctx.end(st, END);
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append('o').append(i).append('\n');
            err.append('e').append(i).append('\n');
        }
        Expect.bytes(
                "concatenated stdout events of 3000 interleaved stdout/stderr lines",
                utf8(out.toString()),
                st.stdout());
        Expect.bytes(
                "concatenated stderr events of 3000 interleaved stdout/stderr lines",
                utf8(err.toString()),
                st.stderr());
    }

    static void start008(CheckContext ctx) throws Exception {
        int chunk = ctx.options()
                .streamChunkSize()
                .orElseThrow(
                        () -> new CheckSkipped(
                                "pass --stream-chunk-size N with the runtime's configured --stream-chunk-size to check the bound"));
        long total = 4L * chunk + 17;
        StartRecorder st =
                ctx.start(Command.shell("head -c " + total + " /dev/zero; head -c " + total + " /dev/zero >&2"));
        ctx.end(st, END);
        int biggest = 0;
        for (StartRecorder.Event e : st.events()) {
            biggest = Math.max(
                    biggest,
                    Math.max(
                            e.message().getStdout().size(),
                            e.message().getStderr().size()));
        }
        Expect.that(
                biggest <= chunk,
                "Start writing " + total + " bytes to stdout and stderr: an event carried " + biggest
                        + " bytes, more than --stream-chunk-size " + chunk);
        Expect.equal("stdout bytes received", total, (long) st.stdout().length);
        Expect.equal("stderr bytes received", total, (long) st.stderr().length);
    }

    static void start009(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("echo first; sleep 2.5; echo second"));
        ctx.init(st);
        ctx.end(st, END);
        long init = st.events().get(0).nanos();
        StartRecorder.Event first = st.events().stream()
                .filter(e -> e.message().hasStdout())
                .findFirst()
                .orElseThrow(() -> fail("no stdout event: " + st.describe()));
        long ms = TimeUnit.NANOSECONDS.toMillis(first.nanos() - init);
        Expect.that(
                ms < 1500 && first.message().getStdout().toStringUtf8().startsWith("first"),
                "Start [echo first; sleep 2.5; echo second]: expected \"first\" promptly (< 1.5 s after init), it arrived after "
                        + ms + " ms as "
                        + Expect.excerpt(first.message().getStdout().toByteArray(), 40));
    }

    static void start010(CheckContext ctx) throws Exception {
        int n = 1 << 20;
        StartRecorder st = ctx.start(Command.shell("head -c " + n + " /dev/zero | tr '\\000' x; printf END"));
        ctx.end(st, END);
        byte[] out = st.stdout();
        String tail =
                new String(out, Math.max(0, out.length - 3), Math.min(3, out.length), StandardCharsets.ISO_8859_1);
        Expect.that(
                out.length == n + 3 && tail.equals("END"),
                "Start writing 1 MiB then \"END\": expected " + (n + 3)
                        + " stdout bytes ending in END before exit, got " + out.length + " bytes ending in "
                        + Expect.excerpt(tail, 10)
                        + "; exit " + st.exitCode());
    }

    static void start011(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("sleep 8 & echo started"));
        ctx.init(st);
        ctx.end(st, Duration.ofSeconds(20));
        StartRecorder.Event started = st.events().stream()
                .filter(e -> e.message().hasStdout())
                .findFirst()
                .orElseThrow(() -> fail("no stdout event: " + st.describe()));
        StartRecorder.Event exit = st.exitEvent();
        Expect.that(
                exit != null, "Start [sh -c 'sleep 8 & echo started']: expected an exit event, got " + st.describe());
        long ms = TimeUnit.NANOSECONDS.toMillis(exit.nanos() - started.nanos());
        Expect.that(
                ms <= 4500 && exit.message().getExit().getExitCode() == 0,
                "Start [sh -c 'sleep 8 & echo started'] (the background sleep holds stdout): expected exit{0} within 2 s of the leader's exit (4.5 s allowed), it came "
                        + ms + " ms after \"started\" as exit{"
                        + exit.message().getExit().getExitCode() + "}");
    }

    static void killGroupOnStreamEnd(CheckContext ctx, boolean cancel) throws Exception {
        StartRecorder st = ctx.start(
                Command.shell("sleep 300 & echo \"$$ $!\"; wait"),
                cancel ? Duration.ofSeconds(60) : Duration.ofSeconds(2));
        ctx.init(st);
        Expect.that(
                st.await(s -> s.stdoutText().trim().split(" ").length == 2, Duration.ofSeconds(10)),
                "Start [sh -c 'sleep 300 & echo \"$$ $!\"; wait']: expected the two pids on stdout, got "
                        + st.describe());
        String[] pids = st.stdoutText().trim().split(" ");
        if (cancel) {
            ctx.cancel(st);
        } else {
            st.awaitEnd(Duration.ofSeconds(10));
        }
        for (String p : pids) {
            Expect.that(
                    ctx.suite().awaitGone(Long.parseLong(p), Duration.ofSeconds(8)),
                    (cancel ? "after cancelling the stream" : "after the stream's 2 s deadline passed") + ", process "
                            + p + " of the group (shell " + pids[0] + ", background sleep "
                            + pids[1] + ") was still alive 8 s later");
        }
    }

    static void start014(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("true"));
        int pid = ctx.init(st);
        ctx.end(st, END);
        Expect.grpc(
                () -> ctx.client().writeStdin(pid, utf8("x")),
                Code.NOT_FOUND,
                "WriteStdin to process " + pid + " after its stream ended");
        Expect.grpc(
                () -> ctx.client().sendSignal(signal(pid, 15)),
                Code.NOT_FOUND,
                "SendSignal to process " + pid + " after its stream ended");
        Expect.grpc(
                () -> ctx.client().resizeTty(pid, 80, 24),
                Code.NOT_FOUND,
                "ResizeTTY of process " + pid + " after its stream ended");
    }

    // ---- §1.4 Execute ----

    static void exec001(CheckContext ctx) {
        ExecResult r = Expect.ok(
                () -> ctx.client().execute(Command.shell("echo out; echo err >&2; exit 3")),
                "Execute [sh -c 'echo out; echo err >&2; exit 3'] (a non-zero exit is not an RPC error)");
        Expect.equal("exit_code", 3, r.exitCode());
        Expect.equal("stdout", "out\n", r.stdout().toStringUtf8());
        Expect.equal("stderr", "err\n", r.stderr().toStringUtf8());
    }

    static void exec002(CheckContext ctx) {
        ExecResult r = Expect.ok(
                () -> ctx.client().withCallTimeout(Duration.ofSeconds(10)).execute(Command.of("cat")),
                "Execute [cat] (stdin must be /dev/null, so cat ends at once)");
        Expect.equal("Execute [cat] exit_code", 0, r.exitCode());
        Expect.equal("Execute [cat] stdout", "", r.stdout().toStringUtf8());
    }

    static void exec003(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        Expect.grpc(
                () -> ctx.client()
                        .withCallTimeout(Duration.ofSeconds(2))
                        .execute(Command.shell("sleep 300 & echo \"$$ $!\" > pids; wait")
                                .cwd(dir)),
                Code.DEADLINE_EXCEEDED,
                "Execute [sh -c 'sleep 300 & ...; wait'] with a 2 s deadline");
        String[] pids = ctx.sh("cat " + Paths.q(dir + "/pids")).trim().split(" ");
        for (String p : pids) {
            Expect.that(
                    ctx.suite().awaitGone(Long.parseLong(p), Duration.ofSeconds(8)),
                    "after the Execute deadline passed, process " + p + " of its group (shell " + pids[0]
                            + ", background sleep " + pids[pids.length - 1] + ") was still alive 8 s later");
        }
    }

    static void exec004(CheckContext ctx) {
        int limit = ctx.options().executeOutputLimit();
        long n = 2L * limit;
        long total = n + 8;
        ExecResult r = Expect.ok(
                () -> ctx.client()
                        .withCallTimeout(Duration.ofSeconds(60))
                        .execute(Command.shell("printf HEAD; head -c " + n
                                + " /dev/zero | tr '\\000' x; printf TAIL; printf HEAD >&2; head -c " + n
                                + " /dev/zero | tr '\\000' y >&2; printf TAIL >&2")),
                "Execute printing " + total + " bytes to stdout and to stderr");
        for (String stream : new String[] {"stdout", "stderr"}) {
            byte[] kept = (stream.equals("stdout") ? r.stdout() : r.stderr()).toByteArray();
            String head = new String(kept, 0, Math.min(4, kept.length), StandardCharsets.ISO_8859_1);
            String tail = new String(
                    kept, Math.max(0, kept.length - 4), Math.min(4, kept.length), StandardCharsets.ISO_8859_1);
            Expect.that(
                    kept.length <= limit && head.equals("HEAD") && tail.equals("TAIL"),
                    stream + " of " + total
                            + " bytes with --execute-output-limit " + limit + ": expected at most " + limit
                            + " bytes keeping head \"HEAD\" and tail \"TAIL\", got "
                            + kept.length + " bytes starting " + Expect.excerpt(head, 8) + " ending "
                            + Expect.excerpt(tail, 8));
            String trailer = r.trailers()
                    .get(io.grpc.Metadata.Key.of(
                            "sandboxd-" + stream + "-truncated-bytes", io.grpc.Metadata.ASCII_STRING_MARSHALLER));
            Expect.equal(
                    "trailer sandboxd-" + stream + "-truncated-bytes (" + total + " written, " + kept.length + " kept)",
                    String.valueOf(total - kept.length),
                    trailer == null ? null : trailer.trim());
        }
    }

    static void exec005(CheckContext ctx) throws Exception {
        Expect.grpc(
                () -> ctx.client().withCallTimeout(Duration.ofSeconds(2)).execute(Command.of("yes")),
                Code.DEADLINE_EXCEEDED,
                "Execute [yes] with a 2 s deadline");
        Expect.ok(
                () -> ctx.client().withCallTimeout(Duration.ofSeconds(15)).execute(Command.of("true")),
                "Execute [true] right after Execute [yes] timed out");
        Expect.status(ctx.rest().get("/v1/health"), 200);
    }

    static void exec006(CheckContext ctx) {
        long t0 = System.nanoTime();
        ExecResult r = Expect.ok(
                () -> ctx.client()
                        .withCallTimeout(Duration.ofSeconds(15))
                        .execute(Command.shell("sleep 8 & echo done")),
                "Execute [sh -c 'sleep 8 & echo done'] (the background sleep holds stdout)");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Expect.equal("stdout", "done\n", r.stdout().toStringUtf8());
        Expect.equal("exit_code", 0, r.exitCode());
        Expect.that(
                ms <= 5000,
                "Execute [sh -c 'sleep 8 & echo done']: expected the response within 2 s of the leader's exit (5 s allowed from the call), it took "
                        + ms + " ms");
    }
}
