package io.sandboxd.conformance.checks;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Message;
import io.grpc.Status.Code;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessProto;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.conformance.client.Bytes;
import io.sandboxd.conformance.client.GrpcResult;
import io.sandboxd.conformance.client.ProcessClient;
import io.sandboxd.conformance.client.StartStream;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static io.sandboxd.conformance.client.ProcessClient.config;
import static io.sandboxd.conformance.client.ProcessClient.sh;
import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;

/** Checks of CONTRACT §1.1–§1.4: wire shape, command construction, Start and Execute. */
public final class ProcessChecks {
    /** An id no runtime hands out within a conformance run. */
    static final int UNKNOWN_ID = 2_000_000_007;
    static final Duration END = Duration.ofSeconds(20);

    private ProcessChecks() {
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
        GrpcResult<ExecuteResponse> ex = ctx.proc().execute(config("true"));
        if (ex.code() == Code.UNIMPLEMENTED) {
            missing.add("Execute: " + ex.describe());
        }
        StartStream st = ctx.start(config("true"));
        st.awaitEnd(END);
        if (st.status() != null && st.status().getCode() == Code.UNIMPLEMENTED) {
            missing.add("Start: " + st.describe());
        }
        for (GrpcResult<?> r : List.of(ctx.proc().write(UNKNOWN_ID, new byte[]{1}), ctx.proc().signal(UNKNOWN_ID, 15),
                ctx.proc().resize(UNKNOWN_ID, 80, 24))) {
            if (r.code() == Code.UNIMPLEMENTED) {
                missing.add(r.describe());
            }
        }
        Expect.that(missing.isEmpty(), "methods not served under /process.v1.ProcessService/*: " + missing);
    }

    static void wire002(CheckContext ctx) throws Exception {
        List<String> extra = new ArrayList<>();
        GrpcResult<ExecuteResponse> ex = ctx.proc().execute(sh("echo out; echo err >&2; exit 3"));
        Expect.ok(ex, "Execute");
        unknown(extra, "ExecuteResponse", ex.value());
        StartStream st = ctx.start(sh("cat"), PTY.newBuilder().setCols(80).setRows(24).build(), Duration.ofSeconds(30));
        int pid = ctx.init(st);
        GrpcResult<?> resize = ctx.proc().resize(pid, 100, 30);
        Expect.ok(resize, "ResizeTTY on a pty process");
        unknown(extra, "ResizeTTYResponse", (Message) resize.value());
        GrpcResult<?> write = ctx.proc().write(pid, Bytes.utf8("x\n"));
        Expect.ok(write, "WriteStdin");
        unknown(extra, "WriteStdinResponse", (Message) write.value());
        GrpcResult<?> sig = ctx.proc().signal(pid, 9);
        Expect.ok(sig, "SendSignal SIGKILL");
        unknown(extra, "SendSignalResponse", (Message) sig.value());
        ctx.end(st, END);
        for (StartStream.Event e : st.events()) {
            unknown(extra, "StartResponse", e.message());
            if (e.message().hasInit()) {
                unknown(extra, "InitEvent", e.message().getInit());
            }
            if (e.message().hasExit()) {
                unknown(extra, "ExitEvent", e.message().getExit());
            }
        }
        Expect.that(extra.isEmpty(), "responses carry fields that are not in the upstream proto (field numbers): " + extra);
    }

    private static void unknown(List<String> out, String what, Message m) {
        if (m != null && !m.getUnknownFields().asMap().isEmpty()) {
            out.add(what + " " + m.getUnknownFields().asMap().keySet());
        }
    }

    static void wire003(CheckContext ctx) throws Exception {
        List<FileDescriptorProto> files;
        try {
            files = Reflection.filesContaining(ctx.proc().channel(), "process.v1.ProcessService");
        } catch (io.grpc.StatusRuntimeException e) {
            if (e.getStatus().getCode() == Code.UNIMPLEMENTED) {
                throw new CheckSkipped("the runtime serves no gRPC server reflection, so its descriptor cannot be compared (see PROC-WIRE-005)");
            }
            throw fail("reflection request for symbol process.v1.ProcessService failed: " + e.getStatus());
        }
        FileDescriptorProto served = files.stream().filter(f -> f.getServiceList().stream()
                .anyMatch(s -> s.getName().equals("ProcessService")) && f.getPackage().equals("process.v1")).findFirst()
                .orElseThrow(() -> fail("reflection returned no file declaring process.v1.ProcessService; got "
                        + files.stream().map(FileDescriptorProto::getName).toList()));
        TreeSet<String> want = Reflection.wireFacts(ProcessProto.getDescriptor().toProto());
        TreeSet<String> got = Reflection.wireFacts(served);
        TreeSet<String> missing = new TreeSet<>(want);
        missing.removeAll(got);
        TreeSet<String> unexpected = new TreeSet<>(got);
        unexpected.removeAll(want);
        Expect.that(missing.isEmpty() && unexpected.isEmpty(), "served descriptor " + served.getName()
                + " differs from upstream process/v1/process.proto; missing: " + missing + "; not in upstream: " + unexpected);
    }

    static void wire004(CheckContext ctx) {
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ctx.proc().channel()).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService("").build());
            Expect.equal("grpc.health.v1.Health/Check(service \"\") status", HealthCheckResponse.ServingStatus.SERVING, r.getStatus());
        } catch (io.grpc.StatusRuntimeException e) {
            throw fail("grpc.health.v1.Health/Check(service \"\"): expected SERVING, got gRPC status " + e.getStatus());
        }
    }

    static void wire005(CheckContext ctx) throws Exception {
        List<String> services;
        try {
            services = Reflection.services(ctx.proc().channel());
        } catch (io.grpc.StatusRuntimeException e) {
            throw fail("grpc.reflection.v1(alpha).ServerReflection list_services: expected a service list, got " + e.getStatus());
        }
        Expect.that(services.contains("process.v1.ProcessService") && services.contains("grpc.health.v1.Health"),
                "reflection list_services: expected process.v1.ProcessService and grpc.health.v1.Health, got " + services);
    }

    // ---- §1.2 command construction ----

    static void cmd001(CheckContext ctx) {
        Expect.grpc(ctx.proc().execute(ExecuteRequest.getDefaultInstance(), Duration.ofSeconds(20)), Code.INVALID_ARGUMENT,
                "Execute without config");
        Expect.grpc(ctx.proc().execute(ProcessConfig.newBuilder().putEnvVars("A", "b").build()), Code.INVALID_ARGUMENT,
                "Execute with an empty command");
    }

    static void cmd002(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(ProcessConfig.newBuilder().setCwd("").build(), null, Duration.ofSeconds(20));
        ctx.end(st, END);
        Expect.that(st.status().getCode() == Code.INVALID_ARGUMENT && st.events().isEmpty(),
                "Start with an empty command: expected status INVALID_ARGUMENT and no events, got " + st.describe());
    }

    static void cmd003(CheckContext ctx) {
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(config("printf", "%s|", "a b", "$HOME", "*", ";echo x", "'q'"));
        Expect.ok(r, "Execute [printf ...]");
        Expect.equal("stdout of Execute [\"printf\", \"%s|\", \"a b\", \"$HOME\", \"*\", \";echo x\", \"'q'\"] (no shell may expand anything)",
                "a b|$HOME|*|;echo x|'q'|", r.value().getStdout().toStringUtf8());
    }

    static void cmd004(CheckContext ctx) {
        Map<String, String> daemon = ctx.suite().daemonEnv();
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("env").addCommand("-0")
                .putEnvVars("CONFORMANCE_ADDED", "added-value").build());
        Expect.ok(r, "Execute [env -0] with env_vars {CONFORMANCE_ADDED}");
        Map<String, String> child = parseEnv(r.value().getStdout().toString(StandardCharsets.UTF_8));
        Expect.equal("CONFORMANCE_ADDED in the child environment", "added-value", child.get("CONFORMANCE_ADDED"));
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, String> e : daemon.entrySet()) {
            if (!Set.of("PWD", "OLDPWD", "SHLVL", "_").contains(e.getKey()) && !e.getValue().equals(child.get(e.getKey()))) {
                lost.add(e.getKey());
            }
        }
        Expect.that(lost.isEmpty(), "with env_vars set, these daemon variables disappeared or changed in the child: " + lost);
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
        String var = daemon.containsKey("HOME") ? "HOME" : daemon.keySet().stream()
                .filter(k -> !Set.of("PATH", "PWD", "SHLVL", "_").contains(k)).findFirst()
                .orElseThrow(() -> new CheckSkipped("the daemon environment has no variable besides PATH/PWD to override"));
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("printenv").addCommand(var)
                .putEnvVars(var, "conformance-override").build());
        Expect.ok(r, "Execute [printenv " + var + "]");
        Expect.equal("printenv " + var + " with env_vars {" + var + ": conformance-override} (daemon value "
                + Bytes.excerpt(daemon.get(var), 60) + ")", "conformance-override\n", r.value().getStdout().toStringUtf8());
    }

    static void cmd006(CheckContext ctx) {
        String dir = ctx.mkdir();
        String want = join(ctx.suite().rootAbs(), dir) + "\n";
        GrpcResult<ExecuteResponse> plain = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("printenv").addCommand("PWD").setCwd(dir).build());
        Expect.ok(plain, "Execute [printenv PWD] cwd " + dir);
        Expect.equal("PWD with cwd \"" + dir + "\"", want, plain.value().getStdout().toStringUtf8());
        GrpcResult<ExecuteResponse> env = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("printenv").addCommand("PWD").setCwd(dir)
                .putEnvVars("CONFORMANCE", "1").build());
        Expect.ok(env, "Execute [printenv PWD] cwd " + dir + " with env_vars");
        Expect.equal("PWD with cwd \"" + dir + "\" and non-empty env_vars", want, env.value().getStdout().toStringUtf8());
    }

    static String join(String rootAbs, String rel) {
        return rootAbs.endsWith("/") ? rootAbs + rel : rootAbs + "/" + rel;
    }

    static void cmd007(CheckContext ctx) throws Exception {
        Expect.grpc(ctx.proc().execute(config("conformance-no-such-binary-7f3a")), Code.NOT_FOUND,
                "Execute [conformance-no-such-binary-7f3a]");
        Expect.grpc(ctx.proc().execute(config("/conformance/no/such/binary")), Code.NOT_FOUND, "Execute [/conformance/no/such/binary]");
        StartStream st = ctx.start(config("conformance-no-such-binary-7f3a"));
        ctx.end(st, END);
        Expect.that(st.status().getCode() == Code.NOT_FOUND,
                "Start [conformance-no-such-binary-7f3a]: expected the stream to end with NOT_FOUND, got " + st.describe());
    }

    static void cmd008(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("noexec.sh"), Bytes.utf8("#!/bin/sh\necho should-not-run\n"));
        ctx.sh("chmod 0644 " + io.sandboxd.conformance.suite.Paths.q(ctx.path("noexec.sh")));
        String bin = join(ctx.suite().rootAbs(), ctx.path("noexec.sh"));
        Expect.grpc(ctx.proc().execute(config(bin)), Code.PERMISSION_DENIED, "Execute [" + bin + "] (mode 0644)");
        StartStream st = ctx.start(config(bin));
        ctx.end(st, END);
        Expect.that(st.status().getCode() == Code.PERMISSION_DENIED,
                "Start [" + bin + "] (mode 0644): expected the stream to end with PERMISSION_DENIED, got " + st.describe());
    }

    static void cmd009(CheckContext ctx) throws Exception {
        String root = ctx.suite().rootAbs();
        String dir = ctx.mkdir();
        String outside = Fixtures.outsideTarget(root);
        ctx.sh("ln -s " + io.sandboxd.conformance.suite.Paths.q(outside) + " " + io.sandboxd.conformance.suite.Paths.q(ctx.path("out")));
        List<String[]> cases = List.of(
                new String[]{"cwd \"../..\"", "../..", "pwd"},
                new String[]{"cwd through a symlink to " + outside, ctx.path("out"), "pwd"},
                new String[]{"missing binary", null, "conformance-no-such-binary-7f3a"},
                new String[]{"missing cwd", ctx.path("missing"), "pwd"});
        List<String> leaks = new ArrayList<>();
        for (String[] c : cases) {
            ProcessConfig.Builder b = ProcessConfig.newBuilder().addCommand(c[2]);
            if (c[1] != null) {
                b.setCwd(c[1]);
            }
            GrpcResult<ExecuteResponse> r = ctx.proc().execute(b.build());
            Expect.that(!r.ok(), c[0] + ": expected an error status, got OK");
            String msg = r.status().getDescription() == null ? "" : r.status().getDescription();
            String leak = Fixtures.leakedPath(msg, root, c[1] == null ? c[2] : c[1]);
            if (leak != null) {
                leaks.add(c[0] + " -> " + r.describe() + " reveals " + leak);
            }
        }
        Expect.that(leaks.isEmpty(), "error messages reveal host paths outside the root " + root + ": " + leaks);
    }

    static final String PGRP_SCRIPT = "read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo \"$$ $pgrp\"";

    static void cmd010(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh(PGRP_SCRIPT));
        ctx.end(st, END);
        String[] f = st.stdoutText().trim().split(" ");
        Expect.that(f.length == 2 && f[0].equals(f[1]), "Start: the process must lead its own process group (pid == pgrp); `"
                + PGRP_SCRIPT + "` printed " + Bytes.excerpt(st.stdoutText(), 80) + " in " + st.describe());
    }

    static void cmd011(CheckContext ctx) {
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(sh(PGRP_SCRIPT));
        Expect.ok(r, "Execute");
        String out = r.value().getStdout().toStringUtf8();
        String[] f = out.trim().split(" ");
        Expect.that(f.length == 2 && f[0].equals(f[1]), "Execute: the process must lead its own process group (pid == pgrp); `"
                + PGRP_SCRIPT + "` printed " + Bytes.excerpt(out, 80));
    }

    static void cwd001(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("marker.txt"), Bytes.utf8("root-marker"));
        for (String cwd : new String[]{null, ""}) {
            ProcessConfig.Builder b = ProcessConfig.newBuilder().addCommand("cat").addCommand(ctx.path("marker.txt"));
            if (cwd != null) {
                b.setCwd(cwd);
            }
            GrpcResult<ExecuteResponse> r = ctx.proc().execute(b.build());
            String what = "Execute [cat " + ctx.path("marker.txt") + "] with " + (cwd == null ? "cwd unset" : "cwd \"\"");
            Expect.ok(r, what);
            Expect.equal(what + " (file written by PUT /v1/files/" + ctx.path("marker.txt") + "): stdout", "root-marker",
                    r.value().getStdout().toStringUtf8());
        }
    }

    static void cwdCat(CheckContext ctx, String cwd) throws Exception {
        ctx.putFixture(ctx.path("sub/m.txt"), Bytes.utf8("in-sub"));
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("cat").addCommand("m.txt").setCwd(cwd).build());
        Expect.ok(r, "Execute [cat m.txt] with cwd \"" + cwd + "\"");
        Expect.equal("Execute [cat m.txt] with cwd \"" + cwd + "\" where PUT wrote " + ctx.path("sub/m.txt") + ": stdout", "in-sub",
                r.value().getStdout().toStringUtf8());
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
        for (String cwd : new String[]{"..", "../..", dir + "/../../..", "/../.."}) {
            Expect.grpc(ctx.proc().execute(ProcessConfig.newBuilder().addCommand("pwd").setCwd(cwd).build()), Code.PERMISSION_DENIED,
                    "Execute [pwd] with cwd \"" + cwd + "\"");
        }
        StartStream st = ctx.start(ProcessConfig.newBuilder().addCommand("pwd").setCwd("../..").build(), null, END);
        ctx.end(st, END);
        Expect.that(st.status().getCode() == Code.PERMISSION_DENIED,
                "Start [pwd] with cwd \"../..\": expected PERMISSION_DENIED, got " + st.describe());
    }

    static void cwd006(CheckContext ctx) throws Exception {
        Fixtures.requireConfinedRoot(ctx);
        ctx.mkdir();
        String outside = Fixtures.outsideTarget(ctx.suite().rootAbs());
        ctx.sh("ln -s " + io.sandboxd.conformance.suite.Paths.q(outside) + " " + io.sandboxd.conformance.suite.Paths.q(ctx.path("out")));
        Expect.grpc(ctx.proc().execute(ProcessConfig.newBuilder().addCommand("pwd").setCwd(ctx.path("out")).build()), Code.PERMISSION_DENIED,
                "Execute [pwd] with cwd \"" + ctx.path("out") + "\" (a symlink to " + outside + ")");
    }

    static void cwd007(CheckContext ctx) {
        String cwd = ctx.path("no-such-dir-x9");
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(ProcessConfig.newBuilder().addCommand("printenv").addCommand("HOME").setCwd(cwd).build());
        Expect.grpc(r, Code.NOT_FOUND, "Execute [printenv HOME] with missing cwd \"" + cwd + "\"");
        String msg = r.status().getDescription() == null ? "" : r.status().getDescription();
        Expect.that(msg.contains("no-such-dir-x9") && !msg.contains("printenv"),
                "Execute with missing cwd \"" + cwd + "\": the NOT_FOUND message must name the cwd and not blame the binary, got " + r.describe());
    }

    static void cwd008(CheckContext ctx) throws Exception {
        ctx.putFixture(ctx.path("afile.txt"), Bytes.utf8("x"));
        Expect.grpc(ctx.proc().execute(ProcessConfig.newBuilder().addCommand("pwd").setCwd(ctx.path("afile.txt")).build()),
                Code.INVALID_ARGUMENT, "Execute [pwd] with cwd \"" + ctx.path("afile.txt") + "\" (a regular file)");
    }

    // ---- §1.3 Start ----

    static void start001(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh("echo hi"));
        ctx.init(st);
    }

    static void start002(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh("echo out; echo err >&2; exit 7"));
        ctx.end(st, END);
        List<StartStream.Event> ev = st.events();
        long inits = ev.stream().filter(e -> e.message().hasInit()).count();
        long exits = ev.stream().filter(e -> e.message().hasExit()).count();
        Expect.that(st.status().isOk() && inits == 1 && exits == 1 && !ev.isEmpty() && ev.get(0).message().hasInit()
                        && ev.get(ev.size() - 1).message().hasExit(),
                "Start [sh -c 'echo out; echo err >&2; exit 7']: expected init, output events, exit as the last message, then status OK; got "
                        + st.describe());
    }

    static void start003(CheckContext ctx) throws Exception {
        for (int code : new int[]{0, 7, 255}) {
            StartStream st = ctx.start(sh("exit " + code));
            ctx.end(st, END);
            Expect.that(Integer.valueOf(code).equals(st.exitCode()), "Start [sh -c 'exit " + code + "']: expected exit{exit_code="
                    + code + "}, got " + st.describe());
        }
    }

    static void start004(CheckContext ctx) throws Exception {
        List<StartStream> streams = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            StartStream st = ctx.start(config("true"));
            ctx.end(st, END);
            streams.add(st);
        }
        List<StartStream> concurrent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            concurrent.add(ctx.start(config("true")));
        }
        for (StartStream st : concurrent) {
            ctx.end(st, END);
        }
        streams.addAll(concurrent);
        Set<Integer> seen = new HashSet<>();
        List<Integer> ids = new ArrayList<>();
        for (StartStream st : streams) {
            List<StartStream.Event> ev = st.events();
            int id = !ev.isEmpty() && ev.get(0).message().hasInit() ? ev.get(0).message().getInit().getProcessId() : 0;
            ids.add(id);
            Expect.that(id > 0, "Start [true]: expected init{process_id > 0}, got " + st.describe());
            seen.add(id);
        }
        Expect.that(seen.size() == ids.size(), "process ids of 9 Starts (3 sequential, 6 concurrent) must all differ, got " + ids);
    }

    static void start005(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(config("cat"));
        int pid = ctx.init(st);
        Expect.ok(ctx.proc().write(pid, Bytes.utf8("early")), "WriteStdin right after init");
        Expect.ok(ctx.proc().eof(pid), "WriteStdin eof right after init");
        ctx.end(st, END);
        Expect.that("early".equals(st.stdoutText()) && Integer.valueOf(0).equals(st.exitCode()),
                "Start [cat], input \"early\" and eof sent as soon as init arrived: expected stdout \"early\" and exit 0, got " + st.describe());
        // A signal sent in the instant after init must not be lost (e.g. sent to a process group the
        // child has not created yet). The race is narrow: 8 concurrent attempts make it visible.
        int attempts = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(attempts);
        try {
            List<java.util.concurrent.Future<StartStream>> started = new ArrayList<>();
            for (int i = 0; i < attempts; i++) {
                started.add(pool.submit(() -> {
                    StartStream sl = ctx.start(config("sleep", "30"));
                    int pid2 = ctx.init(sl);
                    Expect.ok(ctx.proc().signal(pid2, 9), "SendSignal SIGKILL right after init");
                    return sl;
                }));
            }
            for (java.util.concurrent.Future<StartStream> f : started) {
                StartStream sl;
                try {
                    sl = f.get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e.getCause());
                }
                Expect.that(sl.awaitEnd(Duration.ofSeconds(10)), "Start [sleep 30] with SendSignal SIGKILL as soon as init arrived ("
                        + attempts + " concurrent attempts): expected the process to die and the stream to end within 10 s, got "
                        + sl.describe() + ". The signal was lost: it must reach the process even when sent right after init");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static void start006(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh("printf 'a\\000\\377\\001b'; printf 'E\\000\\376' >&2"));
        ctx.end(st, END);
        Expect.bytes("Start stdout events of printf 'a\\000\\377\\001b' (" + st.describe() + ")", new byte[]{'a', 0, (byte) 0xff, 1, 'b'}, st.stdout());
        Expect.bytes("Start stderr events of printf 'E\\000\\376' >&2 (" + st.describe() + ")", new byte[]{'E', 0, (byte) 0xfe}, st.stderr());
    }

    static void start007(CheckContext ctx) throws Exception {
        int n = 3000;
        StartStream st = ctx.start(sh("i=0; while [ $i -lt " + n + " ]; do echo o$i; echo e$i >&2; i=$((i+1)); done"));
        ctx.end(st, END);
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append('o').append(i).append('\n');
            err.append('e').append(i).append('\n');
        }
        Expect.bytes("concatenated stdout events of 3000 interleaved stdout/stderr lines", Bytes.utf8(out.toString()), st.stdout());
        Expect.bytes("concatenated stderr events of 3000 interleaved stdout/stderr lines", Bytes.utf8(err.toString()), st.stderr());
    }

    static void start008(CheckContext ctx) throws Exception {
        int chunk = ctx.options().streamChunkSize().orElseThrow(() -> new CheckSkipped(
                "pass --stream-chunk-size N with the runtime's configured --stream-chunk-size to check the bound"));
        long total = 4L * chunk + 17;
        StartStream st = ctx.start(sh("head -c " + total + " /dev/zero; head -c " + total + " /dev/zero >&2"));
        ctx.end(st, END);
        int biggest = 0;
        for (StartStream.Event e : st.events()) {
            biggest = Math.max(biggest, Math.max(e.message().getStdout().size(), e.message().getStderr().size()));
        }
        Expect.that(biggest <= chunk, "Start writing " + total + " bytes to stdout and stderr: an event carried " + biggest
                + " bytes, more than --stream-chunk-size " + chunk);
        Expect.equal("stdout bytes received", total, (long) st.stdout().length);
        Expect.equal("stderr bytes received", total, (long) st.stderr().length);
    }

    static void start009(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh("echo first; sleep 2.5; echo second"));
        ctx.init(st);
        ctx.end(st, END);
        long init = st.events().get(0).nanos();
        StartStream.Event first = st.events().stream().filter(e -> e.message().hasStdout()).findFirst()
                .orElseThrow(() -> fail("no stdout event: " + st.describe()));
        long ms = TimeUnit.NANOSECONDS.toMillis(first.nanos() - init);
        Expect.that(ms < 1500 && first.message().getStdout().toStringUtf8().startsWith("first"),
                "Start [echo first; sleep 2.5; echo second]: expected \"first\" promptly (< 1.5 s after init), it arrived after "
                        + ms + " ms as " + Bytes.excerpt(first.message().getStdout().toByteArray(), 40));
    }

    static void start010(CheckContext ctx) throws Exception {
        int n = 1 << 20;
        StartStream st = ctx.start(sh("head -c " + n + " /dev/zero | tr '\\000' x; printf END"));
        ctx.end(st, END);
        byte[] out = st.stdout();
        String tail = new String(out, Math.max(0, out.length - 3), Math.min(3, out.length), StandardCharsets.ISO_8859_1);
        Expect.that(out.length == n + 3 && tail.equals("END"), "Start writing 1 MiB then \"END\": expected " + (n + 3)
                + " stdout bytes ending in END before exit, got " + out.length + " bytes ending in " + Bytes.excerpt(tail, 10)
                + "; exit " + st.exitCode());
    }

    static void start011(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(sh("sleep 8 & echo started"));
        ctx.init(st);
        ctx.end(st, Duration.ofSeconds(20));
        StartStream.Event started = st.events().stream().filter(e -> e.message().hasStdout()).findFirst()
                .orElseThrow(() -> fail("no stdout event: " + st.describe()));
        StartStream.Event exit = st.exitEvent();
        Expect.that(exit != null, "Start [sh -c 'sleep 8 & echo started']: expected an exit event, got " + st.describe());
        long ms = TimeUnit.NANOSECONDS.toMillis(exit.nanos() - started.nanos());
        Expect.that(ms <= 4500 && exit.message().getExit().getExitCode() == 0,
                "Start [sh -c 'sleep 8 & echo started'] (the background sleep holds stdout): expected exit{0} within 2 s of the leader's exit (4.5 s allowed), it came "
                        + ms + " ms after \"started\" as exit{" + exit.message().getExit().getExitCode() + "}");
    }

    static void killGroupOnStreamEnd(CheckContext ctx, boolean cancel) throws Exception {
        StartStream st = ctx.start(sh("sleep 300 & echo \"$$ $!\"; wait"), null, cancel ? Duration.ofSeconds(60) : Duration.ofSeconds(2));
        ctx.init(st);
        Expect.that(st.await(s -> s.stdoutText().trim().split(" ").length == 2, Duration.ofSeconds(10)),
                "Start [sh -c 'sleep 300 & echo \"$$ $!\"; wait']: expected the two pids on stdout, got " + st.describe());
        String[] pids = st.stdoutText().trim().split(" ");
        if (cancel) {
            st.cancel();
        } else {
            st.awaitEnd(Duration.ofSeconds(10));
        }
        for (String p : pids) {
            Expect.that(ctx.suite().awaitGone(Long.parseLong(p), Duration.ofSeconds(8)), (cancel ? "after cancelling the stream" :
                    "after the stream's 2 s deadline passed") + ", process " + p + " of the group (shell " + pids[0] + ", background sleep "
                    + pids[1] + ") was still alive 8 s later");
        }
    }

    static void start014(CheckContext ctx) throws Exception {
        StartStream st = ctx.start(config("true"));
        int pid = ctx.init(st);
        ctx.end(st, END);
        Expect.grpc(ctx.proc().write(pid, Bytes.utf8("x")), Code.NOT_FOUND, "WriteStdin to process " + pid + " after its stream ended");
        Expect.grpc(ctx.proc().signal(pid, 15), Code.NOT_FOUND, "SendSignal to process " + pid + " after its stream ended");
        Expect.grpc(ctx.proc().resize(pid, 80, 24), Code.NOT_FOUND, "ResizeTTY of process " + pid + " after its stream ended");
    }

    // ---- §1.4 Execute ----

    static void exec001(CheckContext ctx) {
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(sh("echo out; echo err >&2; exit 3"));
        Expect.ok(r, "Execute [sh -c 'echo out; echo err >&2; exit 3'] (a non-zero exit is not an RPC error)");
        Expect.equal("exit_code", 3, r.value().getExitCode());
        Expect.equal("stdout", "out\n", r.value().getStdout().toStringUtf8());
        Expect.equal("stderr", "err\n", r.value().getStderr().toStringUtf8());
    }

    static void exec002(CheckContext ctx) {
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(config("cat"), Duration.ofSeconds(10));
        Expect.ok(r, "Execute [cat] (stdin must be /dev/null, so cat ends at once)");
        Expect.equal("Execute [cat] exit_code", 0, r.value().getExitCode());
        Expect.equal("Execute [cat] stdout", "", r.value().getStdout().toStringUtf8());
    }

    static void exec003(CheckContext ctx) throws Exception {
        String dir = ctx.mkdir();
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(sh("sleep 300 & echo \"$$ $!\" > pids; wait", dir, null), Duration.ofSeconds(2));
        Expect.grpc(r, Code.DEADLINE_EXCEEDED, "Execute [sh -c 'sleep 300 & ...; wait'] with a 2 s deadline");
        String[] pids = ctx.sh("cat " + io.sandboxd.conformance.suite.Paths.q(dir + "/pids")).trim().split(" ");
        for (String p : pids) {
            Expect.that(ctx.suite().awaitGone(Long.parseLong(p), Duration.ofSeconds(8)), "after the Execute deadline passed, process "
                    + p + " of its group (shell " + pids[0] + ", background sleep " + pids[pids.length - 1] + ") was still alive 8 s later");
        }
    }

    static void exec004(CheckContext ctx) {
        int limit = ctx.options().executeOutputLimit();
        long n = 2L * limit;
        long total = n + 8;
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(sh("printf HEAD; head -c " + n + " /dev/zero | tr '\\000' x; printf TAIL; "
                + "printf HEAD >&2; head -c " + n + " /dev/zero | tr '\\000' y >&2; printf TAIL >&2"), Duration.ofSeconds(60));
        Expect.ok(r, "Execute printing " + total + " bytes to stdout and to stderr");
        for (String stream : new String[]{"stdout", "stderr"}) {
            byte[] kept = (stream.equals("stdout") ? r.value().getStdout() : r.value().getStderr()).toByteArray();
            String head = new String(kept, 0, Math.min(4, kept.length), StandardCharsets.ISO_8859_1);
            String tail = new String(kept, Math.max(0, kept.length - 4), Math.min(4, kept.length), StandardCharsets.ISO_8859_1);
            Expect.that(kept.length <= limit && head.equals("HEAD") && tail.equals("TAIL"), stream + " of " + total
                    + " bytes with --execute-output-limit " + limit + ": expected at most " + limit + " bytes keeping head \"HEAD\" and tail \"TAIL\", got "
                    + kept.length + " bytes starting " + Bytes.excerpt(head, 8) + " ending " + Bytes.excerpt(tail, 8));
            String trailer = r.trailers().get(io.grpc.Metadata.Key.of("sandboxd-" + stream + "-truncated-bytes", io.grpc.Metadata.ASCII_STRING_MARSHALLER));
            Expect.equal("trailer sandboxd-" + stream + "-truncated-bytes (" + total + " written, " + kept.length + " kept)",
                    String.valueOf(total - kept.length), trailer == null ? null : trailer.trim());
        }
    }

    static void exec005(CheckContext ctx) throws Exception {
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(config("yes"), Duration.ofSeconds(2));
        Expect.grpc(r, Code.DEADLINE_EXCEEDED, "Execute [yes] with a 2 s deadline");
        GrpcResult<ExecuteResponse> after = ctx.proc().execute(config("true"), Duration.ofSeconds(15));
        Expect.ok(after, "Execute [true] right after Execute [yes] timed out");
        Expect.status(ctx.rest().get("/v1/health"), 200);
    }

    static void exec006(CheckContext ctx) {
        long t0 = System.nanoTime();
        GrpcResult<ExecuteResponse> r = ctx.proc().execute(sh("sleep 8 & echo done"), Duration.ofSeconds(15));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Expect.ok(r, "Execute [sh -c 'sleep 8 & echo done'] (the background sleep holds stdout)");
        Expect.equal("stdout", "done\n", r.value().getStdout().toStringUtf8());
        Expect.equal("exit_code", 0, r.value().getExitCode());
        Expect.that(ms <= 5000, "Execute [sh -c 'sleep 8 & echo done']: expected the response within 2 s of the leader's exit (5 s allowed from the call), it took " + ms + " ms");
    }
}
