package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.checks.ProcessChecks.END;
import static io.sandboxd.conformance.checks.ProcessChecks.UNKNOWN_ID;
import static io.sandboxd.conformance.checks.ProcessChecks.signal;
import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Expect.utf8;

import io.grpc.Status;
import io.grpc.Status.Code;
import io.sandboxd.api.process.v1.PTY;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.client.Command;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Checks of runtime-contract §1.3 (pty), §1.5 WriteStdin, §1.6 SendSignal and §1.7 ResizeTTY. */
public final class InteractiveChecks {
    static final PTY PTY_80X24 = PTY.newBuilder().setCols(80).setRows(24).build();

    private InteractiveChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(PROC_TTY_001, InteractiveChecks::tty001);
        m.put(PROC_TTY_002, InteractiveChecks::tty002);
        m.put(PROC_TTY_003, InteractiveChecks::tty003);
        m.put(PROC_TTY_004, InteractiveChecks::tty004);
        m.put(PROC_TTY_005, InteractiveChecks::tty005);
        m.put(PROC_TTY_006, InteractiveChecks::tty006);
        m.put(
                PROC_TTY_007,
                ctx -> Expect.grpc(
                        () -> ctx.client().resizeTty(UNKNOWN_ID, 80, 24),
                        Code.NOT_FOUND,
                        "ResizeTTY with unknown id " + UNKNOWN_ID));
        m.put(PROC_TTY_008, InteractiveChecks::tty008);
        m.put(PROC_TTY_009, InteractiveChecks::tty009);
        m.put(PROC_TTY_010, InteractiveChecks::tty010);
        m.put(PROC_STDIN_001, ctx -> {
            Expect.grpc(
                    () -> ctx.client().writeStdin(UNKNOWN_ID, utf8("x")),
                    Code.NOT_FOUND,
                    "WriteStdin input to unknown id " + UNKNOWN_ID);
            Expect.grpc(
                    () -> ctx.client().closeStdin(UNKNOWN_ID),
                    Code.NOT_FOUND,
                    "WriteStdin eof to unknown id " + UNKNOWN_ID);
        });
        m.put(PROC_STDIN_002, InteractiveChecks::stdin002);
        m.put(PROC_STDIN_003, InteractiveChecks::stdin003);
        m.put(PROC_STDIN_004, InteractiveChecks::stdin004);
        m.put(PROC_STDIN_005, InteractiveChecks::stdin005);
        m.put(PROC_STDIN_006, InteractiveChecks::stdin006);
        m.put(PROC_STDIN_007, ctx -> afterEof(ctx, true));
        m.put(PROC_STDIN_008, ctx -> afterEof(ctx, false));
        m.put(PROC_STDIN_009, ctx -> afterLeaderExit(ctx, true));
        m.put(PROC_STDIN_010, InteractiveChecks::stdin010);
        m.put(
                PROC_SIG_001,
                ctx -> Expect.grpc(
                        () -> ctx.client().sendSignal(signal(UNKNOWN_ID, 15)),
                        Code.NOT_FOUND,
                        "SendSignal SIGTERM to unknown id " + UNKNOWN_ID));
        m.put(
                PROC_SIG_002,
                ctx -> Expect.grpc(
                        () -> ctx.client().sendSignal(signal(UNKNOWN_ID, 0)),
                        Code.NOT_FOUND,
                        "SendSignal SIGNAL_UNSPECIFIED to unknown id " + UNKNOWN_ID + " (the id is checked first)"));
        m.put(PROC_SIG_003, InteractiveChecks::sig003);
        m.put(PROC_SIG_004, ctx -> signalExit(ctx, false));
        m.put(PROC_SIG_005, InteractiveChecks::sig005);
        m.put(PROC_SIG_006, ctx -> signalExit(ctx, true));
        m.put(PROC_SIG_007, ctx -> afterLeaderExit(ctx, false));
    }

    // ---- pty (§1.3) ----

    static StartRecorder runPty(CheckContext ctx, Command command, PTY pty) {
        StartRecorder st = ctx.start(
                StartRequest.newBuilder()
                        .setConfig(command.toConfig())
                        .setPty(pty)
                        .build(),
                Duration.ofSeconds(30));
        ctx.end(st, END);
        return st;
    }

    static void tty001(CheckContext ctx) throws Exception {
        StartRecorder st = runPty(
                ctx, Command.shell("if [ -t 0 ] && [ -t 1 ]; then echo is-a-tty; else echo not-a-tty; fi"), PTY_80X24);
        Expect.that(
                st.stdoutText().contains("is-a-tty"),
                "Start with pty 80x24: expected `[ -t 0 ] && [ -t 1 ]` to hold (prints is-a-tty), got "
                        + st.describe());
    }

    static void tty002(CheckContext ctx) throws Exception {
        StartRecorder st = runPty(ctx, Command.shell("echo to-stderr >&2"), PTY_80X24);
        Expect.that(
                st.stderr().length == 0,
                "Start with pty running `echo to-stderr >&2`: expected no stderr event (stderr merged into stdout), got "
                        + st.describe());
        // A runtime that loses a PTY's whole output sends no stderr event either; that defect is
        // not merging, and PROC-TTY-001 reports it, so this check cannot judge the merge then.
        if (!st.stdoutText().contains("to-stderr")) {
            throw new CheckSkipped("the pty's output was lost (no \"to-stderr\" on stdout either; see PROC-TTY-001): "
                    + "cannot tell whether stderr is merged");
        }
    }

    static void tty003(CheckContext ctx) throws Exception {
        for (int i = 0; i < 3; i++) {
            StartRecorder st = runPty(
                    ctx,
                    Command.of("stty", "size"),
                    PTY.newBuilder().setCols(100).setRows(30).build());
            Expect.that(
                    st.stdoutText().trim().equals("30 100"),
                    "Start [stty size] with pty {cols: 100, rows: 30} (run " + (i + 1)
                            + " of 3): expected \"30 100\", got " + st.describe());
        }
    }

    static void tty004(CheckContext ctx) throws Exception {
        for (PTY pty : new PTY[] {PTY.newBuilder().setCols(0).setRows(0).build(), PTY.getDefaultInstance()}) {
            StartRecorder st = runPty(ctx, Command.of("stty", "size"), pty);
            Expect.that(
                    st.stdoutText().trim().equals("24 80"),
                    "Start [stty size] with pty {cols: 0, rows: 0}: expected \"24 80\", got " + st.describe());
        }
    }

    static void tty005(CheckContext ctx) throws Exception {
        StartRecorder st = runPty(ctx, Command.of("printenv", "TERM"), PTY_80X24);
        Expect.that(
                st.stdoutText().trim().equals("xterm-256color"),
                "Start [printenv TERM] with pty: expected \"xterm-256color\", got " + st.describe());
        StartRecorder set = runPty(ctx, Command.of("printenv", "TERM").env("TERM", "dumb"), PTY_80X24);
        Expect.that(
                set.stdoutText().trim().equals("dumb"),
                "Start [printenv TERM] with pty and env_vars {TERM: dumb}: expected \"dumb\", got " + set.describe());
    }

    static void tty006(CheckContext ctx) throws Exception {
        int n = 200_000;
        StartRecorder st =
                runPty(ctx, Command.shell("head -c " + n + " /dev/zero | tr '\\000' x; printf END"), PTY_80X24);
        byte[] out = st.stdout();
        int xs = 0;
        for (byte b : out) {
            if (b == 'x') {
                xs++;
            }
        }
        String text = st.stdoutText();
        Expect.that(
                xs == n && text.endsWith("END"),
                "Start with pty writing " + n + " 'x' then \"END\": expected all of it before exit, got " + xs
                        + " 'x' and an ending of " + Expect.excerpt(text.substring(Math.max(0, text.length() - 10)), 20)
                        + "; exit " + st.exitCode());
    }

    // ---- ResizeTTY (§1.7) ----

    static void tty008(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("sleep", "30"));
        int pid = ctx.init(st);
        Expect.grpc(
                () -> ctx.client().resizeTty(pid, 100, 30),
                Code.FAILED_PRECONDITION,
                "ResizeTTY of a process started without pty");
        kill(ctx, pid);
    }

    static void tty009(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("sleep", "30").tty(80, 24), Duration.ofSeconds(60));
        int pid = ctx.init(st);
        for (int[] size : new int[][] {{0, 24}, {80, 0}, {70000, 24}, {80, 65536}}) {
            Expect.grpc(
                    () -> ctx.client().resizeTty(pid, size[0], size[1]),
                    Code.INVALID_ARGUMENT,
                    "ResizeTTY to cols " + size[0] + ", rows " + size[1]);
        }
        kill(ctx, pid);
    }

    static void tty010(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(
                Command.shell(
                                "trap 'stty size' WINCH; echo ready; i=0; while [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done")
                        .tty(80, 24),
                Duration.ofSeconds(40));
        int pid = ctx.init(st);
        Expect.that(
                st.awaitStdoutContains("ready", Duration.ofSeconds(10)),
                "pty process did not print \"ready\": " + st.describe());
        Expect.ok(() -> ctx.client().resizeTty(pid, 100, 30), "ResizeTTY to 100x30");
        boolean seen = st.awaitStdoutContains("30 100", Duration.ofSeconds(10));
        kill(ctx, pid);
        Expect.that(
                seen,
                "after ResizeTTY to cols 100, rows 30 the program's WINCH trap running `stty size` must print \"30 100\"; got "
                        + st.describe());
    }

    // ---- WriteStdin (§1.5) ----

    static void stdin002(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("cat"));
        int pid = ctx.init(st);
        for (String part : new String[] {"one,", "two,", "three"}) {
            Expect.ok(() -> ctx.client().writeStdin(pid, utf8(part)), "WriteStdin \"" + part + "\"");
        }
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof");
        ctx.end(st, END);
        Expect.equal(
                "stdout of cat after writes \"one,\", \"two,\", \"three\" and eof (" + st.describe() + ")",
                "one,two,three",
                st.stdoutText());
    }

    static void stdin003(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("cat"));
        int pid = ctx.init(st);
        Expect.ok(() -> ctx.client().writeStdin(pid, new byte[0]), "WriteStdin with empty input");
        Expect.ok(
                () -> ctx.client()
                        .withCallTimeout(Duration.ofSeconds(20))
                        .writeStdin(
                                WriteStdinRequest.newBuilder().setProcessId(pid).build()),
                "WriteStdin with neither input nor eof");
        Expect.ok(() -> ctx.client().writeStdin(pid, utf8("x")), "WriteStdin \"x\"");
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof");
        ctx.end(st, END);
        Expect.equal("stdout of cat after empty writes, \"x\" and eof (" + st.describe() + ")", "x", st.stdoutText());
    }

    static void stdin004(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("cat; echo after-eof"));
        int pid = ctx.init(st);
        Expect.ok(() -> ctx.client().writeStdin(pid, utf8("data\n")), "WriteStdin");
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof");
        Expect.that(
                st.awaitEnd(Duration.ofSeconds(10))
                        && "data\nafter-eof\n".equals(st.stdoutText())
                        && Integer.valueOf(0).equals(st.exitCode()),
                "Start [sh -c 'cat; echo after-eof'], input \"data\\n\", eof: cat must read EOF so the shell prints after-eof and exits 0 within 10 s; got "
                        + st.describe());
    }

    static void stdin005(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("cat"));
        int pid = ctx.init(st);
        int writers = 8;
        int size = 64 * 1024;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<Status>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                byte[] block = new byte[size];
                Arrays.fill(block, (byte) ('A' + i));
                results.add(pool.submit(() -> Expect.statusOf(() -> ctx.client().writeStdin(pid, block))));
            }
            for (Future<Status> f : results) {
                Expect.grpc(f.get(30, TimeUnit.SECONDS), Code.OK, "concurrent WriteStdin");
            }
        } finally {
            pool.shutdownNow();
        }
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof");
        ctx.end(st, END);
        byte[] out = st.stdout();
        List<String> runs = new ArrayList<>();
        int i = 0;
        while (i < out.length) {
            int j = i;
            while (j < out.length && out[j] == out[i]) {
                j++;
            }
            runs.add((char) out[i] + "x" + (j - i));
            i = j;
        }
        Expect.that(
                out.length == writers * size && runs.size() == writers,
                "8 concurrent WriteStdin calls of 64 KiB each (one letter each) to cat: "
                        + "expected 8 unbroken runs of 65536 bytes, got " + out.length + " bytes in " + runs.size()
                        + " runs "
                        + (runs.size() > 20 ? runs.subList(0, 20) + "..." : runs));
    }

    static void stdin006(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("cat").tty(80, 24), Duration.ofSeconds(30));
        int pid = ctx.init(st);
        Expect.ok(() -> ctx.client().writeStdin(pid, utf8("abc\n")), "WriteStdin \"abc\\n\" to a pty");
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof to a pty");
        Expect.that(
                st.awaitEnd(Duration.ofSeconds(10))
                        && Integer.valueOf(0).equals(st.exitCode())
                        && st.stdoutText().contains("abc"),
                "Start [cat] with pty, input \"abc\\n\", eof: the terminal's EOF (^D) must end cat normally (exit 0) within 10 s; got "
                        + st.describe());
    }

    static void afterEof(CheckContext ctx, boolean repeatEof) throws Exception {
        StartRecorder st = ctx.start(Command.shell("cat; echo cat-done; sleep 10"));
        int pid = ctx.init(st);
        Expect.ok(() -> ctx.client().closeStdin(pid), "WriteStdin eof");
        Expect.that(
                st.awaitStdoutContains("cat-done", Duration.ofSeconds(10)),
                "cat did not end after eof: " + st.describe());
        if (repeatEof) {
            Expect.ok(() -> ctx.client().closeStdin(pid), "a second WriteStdin eof (process still running)");
        } else {
            Expect.grpc(
                    () -> ctx.client().writeStdin(pid, utf8("late")),
                    Code.FAILED_PRECONDITION,
                    "WriteStdin input after eof (process still running)");
        }
        kill(ctx, pid);
    }

    /**
     * The window after the leader exits while a background child still holds stdout (at most 2 s).
     * On a loaded machine the suite may miss it, so it tries up to three times before skipping.
     */
    static void afterLeaderExit(CheckContext ctx, boolean stdin) throws Exception {
        String call = stdin ? "WriteStdin input" : "SendSignal SIGTERM";
        for (int attempt = 1; attempt <= 3; attempt++) {
            StartRecorder st = ctx.start(Command.shell("echo ready; sleep 5 &"));
            int pid = ctx.init(st);
            Expect.that(st.awaitStdoutContains("ready", Duration.ofSeconds(10)), "no \"ready\": " + st.describe());
            Thread.sleep(500);
            Status r = Expect.statusOf(() -> {
                if (stdin) {
                    ctx.client().writeStdin(pid, utf8("late"));
                } else {
                    ctx.client().sendSignal(signal(pid, 15));
                }
            });
            if (r.getCode() == Code.NOT_FOUND && st.isEnded()) {
                continue;
            }
            Expect.grpc(
                    r,
                    stdin ? Code.FAILED_PRECONDITION : Code.OK,
                    call + " to process " + pid
                            + " whose leader exited (a background child still holds stdout, stream still open)");
            return;
        }
        throw new CheckSkipped(
                "in 3 attempts the runtime ended the stream (as it may) before the call, so the window between the leader's exit and the end of the stream could not be hit");
    }

    static void stdin010(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("sleep", "30"));
        int pid = ctx.init(st);
        byte[] big = new byte[2 * 1024 * 1024];
        long t0 = System.nanoTime();
        Status r = Expect.statusOf(() -> ctx.client()
                .withCallTimeout(Duration.ofMillis(1500))
                .writeStdin(WriteStdinRequest.newBuilder()
                        .setProcessId(pid)
                        .setInput(com.google.protobuf.ByteString.copyFrom(big))
                        .build()));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Expect.grpc(
                r,
                Code.DEADLINE_EXCEEDED,
                "WriteStdin of 2 MiB to `sleep 30` (never reads stdin) with a 1.5 s deadline");
        Expect.that(ms < 10_000, "WriteStdin with a 1.5 s deadline returned only after " + ms + " ms");
        Expect.ok(
                () -> ctx.client().withCallTimeout(Duration.ofSeconds(10)).execute(Command.of("true")),
                "Execute [true] while the blocked write is pending");
        Expect.ok(
                () -> ctx.client().sendSignal(signal(pid, 9)),
                "SendSignal SIGKILL to the process with a blocked write");
        Expect.that(st.awaitEnd(Duration.ofSeconds(10)), "the stream did not end after SIGKILL: " + st.describe());
    }

    // ---- SendSignal (§1.6) ----

    /** SIGKILL at the end of a check; whatever the runtime answers (the process may be gone already). */
    static void kill(CheckContext ctx, int pid) {
        Expect.statusOf(() -> ctx.client().sendSignal(signal(pid, 9)));
    }

    static void sig003(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.of("sleep", "30"));
        int pid = ctx.init(st);
        for (int sig : new int[] {0, 1, 3, 99}) {
            Expect.grpc(
                    () -> ctx.client().sendSignal(signal(pid, sig)),
                    Code.INVALID_ARGUMENT,
                    "SendSignal with signal value " + sig);
        }
        kill(ctx, pid);
    }

    static void signalExit(CheckContext ctx, boolean exact) throws Exception {
        for (int sig : new int[] {2, 15, 9}) {
            // "ready" proves the process runs in its group; signalling right after init is PROC-START-005's business.
            StartRecorder st = ctx.start(Command.shell("echo ready; exec sleep 30"));
            int pid = ctx.init(st);
            Expect.that(st.awaitStdoutContains("ready", Duration.ofSeconds(10)), "no \"ready\": " + st.describe());
            Expect.ok(() -> ctx.client().sendSignal(signal(pid, sig)), "SendSignal " + sig + " to `exec sleep 30`");
            if (!st.awaitEnd(Duration.ofSeconds(10))) {
                throw fail("`exec sleep 30` after SendSignal " + sig + ": expected exit within 10 s, got "
                        + st.describe() + ignoredHint(ctx, sig));
            }
            Integer code = st.exitCode();
            if (exact) {
                Expect.that(
                        code != null && code == 128 + sig,
                        "`exec sleep 30` killed by signal " + sig + ": expected exit{exit_code=" + (128 + sig)
                                + "}, got " + st.describe());
            } else {
                Expect.that(
                        code != null && code != 0 && st.status().isOk(),
                        "`exec sleep 30` after SendSignal " + sig
                                + ": expected exit with a non-zero code and status OK, got " + st.describe());
            }
        }
    }

    /** Explains the classic cause of an ignored SIGINT: the runtime itself was started with it ignored. */
    static String ignoredHint(CheckContext ctx, int sig) {
        try {
            String line = ctx.sh("grep '^SigIgn' /proc/self/status")
                    .replace("SigIgn:", "")
                    .trim();
            long mask = Long.parseUnsignedLong(line, 16);
            if ((mask & (1L << (sig - 1))) != 0) {
                return ". The runtime's children start with signal " + sig + " ignored (SigIgn " + line
                        + "): the runtime was itself started with it ignored (nohup, or `&` in a non-interactive shell) and passes that on";
            }
        } catch (RuntimeException ignored) {
            // no /proc: no hint
        }
        return "";
    }

    static void sig005(CheckContext ctx) throws Exception {
        StartRecorder st = ctx.start(Command.shell("sleep 300 & echo $!; wait"));
        int pid = ctx.init(st);
        Expect.that(
                st.await(s -> s.stdoutText().endsWith("\n"), Duration.ofSeconds(10)),
                "no background pid printed: " + st.describe());
        long bg = Long.parseLong(st.stdoutText().trim());
        Expect.ok(() -> ctx.client().sendSignal(signal(pid, 15)), "SendSignal SIGTERM");
        ctx.end(st, Duration.ofSeconds(10));
        Expect.that(
                ctx.suite().awaitGone(bg, Duration.ofSeconds(8)),
                "SIGTERM to process " + pid + " must reach its whole group, but its background child (pid " + bg
                        + ") was still alive 8 s later");
    }
}
