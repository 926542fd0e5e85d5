package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.checks.ProcessChecks.UNKNOWN_ID;
import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;

import io.grpc.Status;
import io.grpc.Status.Code;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.Gap;
import io.sandboxd.api.durable.v1alpha1.GapReason;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.Command;
import io.sandboxd.client.DurableAttachment;
import io.sandboxd.client.DurableOptions;
import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Checks of runtime-contract §4.1: durable processes ({@code sandboxd.durable.v1alpha1.DurableProcessService}). */
public final class DurableChecks {
    static final Duration END = Duration.ofSeconds(30);

    /** 3 MB to an attacher that reads at once takes well under a second. */
    static final Duration STALLED_BOUND = Duration.ofSeconds(10);
    /** The stalled attacher's HTTP/2 window: a few percent of attach007's 3,000,000 bytes. */
    static final int STALLED_WINDOW_BYTES = 64 * 1024;

    private DurableChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(DUR_WIRE_001, DurableChecks::wire001);
        m.put(DUR_START_001, DurableChecks::start001);
        m.put(DUR_START_002, DurableChecks::start002);
        m.put(DUR_START_003, DurableChecks::start003);
        m.put(DUR_TAG_001, DurableChecks::tag001);
        m.put(DUR_ID_001, DurableChecks::id001);
        m.put(DUR_ID_002, DurableChecks::id002);
        m.put(DUR_ATTACH_001, DurableChecks::attach001);
        m.put(DUR_ATTACH_002, DurableChecks::attach002);
        m.put(DUR_ATTACH_003, DurableChecks::attach003);
        m.put(DUR_ATTACH_004, DurableChecks::attach004);
        m.put(DUR_ATTACH_005, DurableChecks::attach005);
        m.put(DUR_ATTACH_006, DurableChecks::attach006);
        m.put(DUR_ATTACH_007, DurableChecks::attach007);
        m.put(DUR_LIST_001, DurableChecks::list001);
        m.put(DUR_LIST_002, DurableChecks::list002);
        m.put(DUR_WAIT_001, DurableChecks::wait001);
        m.put(DUR_TIMEOUT_001, DurableChecks::timeout001);
        m.put(DUR_PTY_001, DurableChecks::pty001);
    }

    // ---- helpers ----

    /**
     * The processes a check started: every one still running is sent SIGKILL when the check ends,
     * so a failing check leaves nothing behind in the runtime.
     */
    static final class Processes implements AutoCloseable {
        private final CheckContext ctx;
        private final List<Integer> ids = new ArrayList<>();
        private final List<DurableAttachment> streams = new ArrayList<>();

        Processes(CheckContext ctx) {
            this.ctx = ctx;
        }

        DurableProcesses durable() {
            return ctx.client().durable();
        }

        /** Starts detached; the id once {@code started} came. */
        int detached(Command command, DurableOptions options) {
            int id = Expect.ok(
                    () -> durable().start(command, options.detach(true)), "Start " + command.argv() + " with detach");
            ids.add(id);
            return id;
        }

        int detached(Command command) {
            return detached(command, DurableOptions.detached());
        }

        /** Starts exactly {@code request}, streaming into a new recorder. */
        DurableRecorder start(StartRequest request, DurableAttachment[] handle) {
            DurableRecorder r = new DurableRecorder();
            DurableAttachment a = durable().startAttached(request, r);
            streams.add(a);
            if (handle != null) {
                handle[0] = a;
            }
            return r;
        }

        /** Attaches from these offsets, streaming into a new recorder. */
        DurableRecorder attach(ProcessRef ref, long stdoutFrom, long stderrFrom, DurableAttachment[] handle) {
            DurableRecorder r = new DurableRecorder(stdoutFrom, stderrFrom);
            DurableAttachment a = durable().attach(ref, stdoutFrom, stderrFrom, r);
            streams.add(a);
            if (handle != null) {
                handle[0] = a;
            }
            return r;
        }

        /** Attaches from these offsets and waits for the stream to end OK after the exit record. */
        DurableRecorder attachToEnd(int id, long stdoutFrom, long stderrFrom) throws InterruptedException {
            DurableRecorder r = attach(DurableProcesses.byId(id), stdoutFrom, stderrFrom, null);
            String what =
                    "Attach{process_id=" + id + ", stdout_offset=" + stdoutFrom + ", stderr_offset=" + stderrFrom + "}";
            ended(r, what);
            return r;
        }

        void track(int id) {
            ids.add(id);
        }

        @Override
        public void close() {
            for (DurableAttachment a : streams) {
                a.detach();
            }
            for (int id : ids) {
                try {
                    ctx.client().sendSignal(id, Signal.SIGNAL_SIGKILL);
                } catch (RuntimeException e) {
                    // ended already
                }
            }
        }
    }

    /** The stream must end OK, after an exit record, with offsets contiguous. */
    static void ended(DurableRecorder r, String what) throws InterruptedException {
        ended(r, what, END);
    }

    static void ended(DurableRecorder r, String what, Duration within) throws InterruptedException {
        if (!r.awaitEnd(within)) {
            throw fail(what + ": expected the stream to end within " + within.toSeconds() + " s, got " + r.describe());
        }
        if (!r.status().isOk() || r.exit() == null) {
            throw fail(what + ": expected the exit record and then status OK, got " + r.describe());
        }
        AttachEvent last = r.events().get(r.events().size() - 1);
        if (!last.hasExit()) {
            throw fail(what + ": expected the exit record to be the last event, got " + r.describe());
        }
        if (!r.violations().isEmpty()) {
            throw fail(what + ": " + r.violations().get(0) + "; " + r.describe());
        }
    }

    static ExitRecord waitFor(CheckContext ctx, int id) {
        return Expect.ok(
                () -> ctx.client().withStreamDeadline(END).durable().waitFor(DurableProcesses.byId(id)),
                "Wait{process_id=" + id + "}");
    }

    static ProcessInfo get(CheckContext ctx, ProcessRef ref) {
        return Expect.ok(() -> ctx.client().durable().get(ref), "Get{" + DurableProcesses.describe(ref) + "}");
    }

    /** A tag unique to this run and check. */
    static String tag(CheckContext ctx, String name) {
        return ctx.suite().scratch() + "-" + name;
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code o0\n...o(n-1)\n} on stdout and {@code e0\n...} on stderr, alternating: sh only. */
    static Command lines(int n, String sleepEvery) {
        return Command.shell("i=0; while [ $i -lt " + n + " ]; do echo o$i; echo e$i >&2; i=$((i+1));"
                + (sleepEvery == null ? "" : " [ $((i % " + sleepEvery + ")) = 0 ] && sleep 0.05;") + " done");
    }

    static byte[] expectedLines(String prefix, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(prefix).append(i).append('\n');
        }
        return utf8(b.toString());
    }

    // ---- checks ----

    static void wire001(CheckContext ctx) {
        Status s = Expect.statusOf(() -> ctx.client().durable().list(true));
        if (s.getCode() == Code.UNIMPLEMENTED) {
            throw fail("List: expected sandboxd.durable.v1alpha1.DurableProcessService to be served, got "
                    + Expect.describe(s));
        }
        Expect.grpc(s, Code.OK, "List{all: true}");
    }

    static void start001(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            DurableRecorder r = ps.start(
                    DurableOptions.defaults().toStartRequest(Command.shell("printf out; printf err >&2; exit 3")),
                    null);
            String what = "Start [sh -c 'printf out; printf err >&2; exit 3']";
            ended(r, what);
            List<AttachEvent> ev = r.events();
            if (!ev.get(0).hasStarted() || r.startedId() <= 0) {
                throw fail(what + ": expected the first event to be started{process_id > 0}, got " + r.describe());
            }
            ps.track(r.startedId());
            Expect.equal(what + ": stdout put together by offset", "out", r.stdoutText());
            Expect.equal(what + ": stderr put together by offset", "err", text(r.stderr()));
            if (!r.gaps().isEmpty()) {
                throw fail(what + ": expected no gap, got " + r.describe());
            }
            ExitRecord x = r.exit();
            if (x.getKind() != ExitKind.EXIT_KIND_EXITED || x.getExitCode() != 3 || x.getProcessId() != r.startedId()) {
                throw fail(what + ": expected exit{process_id=" + r.startedId() + ", EXITED, exit_code=3}, got "
                        + r.describe());
            }
        }
    }

    static void start002(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.shell("sleep 1; echo late"));
            ExitRecord x = waitFor(ctx, id);
            if (x.getKind() != ExitKind.EXIT_KIND_EXITED || x.getExitCode() != 0) {
                throw fail("Start [sh -c 'sleep 1; echo late'] with detach, its stream ended after started: expected"
                        + " the process to run on and exit 0, Wait said " + DurableRecorder.describe(exitEvent(x)));
            }
            DurableRecorder r = ps.attachToEnd(id, 0, 0);
            Expect.equal("Attach from 0 after the detached process ended: stdout", "late\n", r.stdoutText());
        }
    }

    static AttachEvent exitEvent(ExitRecord x) {
        return AttachEvent.newBuilder().setExit(x).build();
    }

    static void start003(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            DurableAttachment[] h = new DurableAttachment[1];
            DurableRecorder r =
                    ps.start(DurableOptions.defaults().toStartRequest(Command.shell("sleep 60 & echo $!; wait")), h);
            String what = "Start [sh -c 'sleep 60 & echo $!; wait'] without detach";
            if (!r.awaitStdout("\n", END)) {
                throw fail(what + ": expected the child's pid on stdout, got " + r.describe());
            }
            int id = r.startedId();
            ps.track(id);
            long child = Long.parseLong(r.stdoutText().strip());
            long leader = get(ctx, DurableProcesses.byId(id)).getPid();
            h[0].detach(); // the client cancels the starting stream
            for (long pid : new long[] {leader, child}) {
                if (pid > 0 && !ctx.suite().awaitGone(pid, Duration.ofSeconds(5))) {
                    throw fail(what + ", stream cancelled: expected the tree to be killed, pid " + pid
                            + " is alive 5 s later");
                }
            }
            ExitRecord x = waitFor(ctx, id);
            if (x.getKind() == ExitKind.EXIT_KIND_EXITED && x.getExitCode() == 0) {
                throw fail(what + ", stream cancelled: expected the tree to be killed, Wait said "
                        + DurableRecorder.describe(exitEvent(x)));
            }
        }
    }

    static void tag001(CheckContext ctx) throws Exception {
        String tag = tag(ctx, "tag");
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(
                    Command.shell("echo tagged; sleep 60"),
                    DurableOptions.detached().tag(tag));
            Status dup = Expect.statusOf(() -> ps.durable()
                    .start(Command.of("true"), DurableOptions.detached().tag(tag)));
            if (dup.isOk()) {
                // a runtime that accepted it started a second process: end it too
                for (ProcessInfo p : ps.durable().list(false)) {
                    if (p.getTag().equals(tag) && p.getProcessId() != id) {
                        ps.track(p.getProcessId());
                    }
                }
            }
            Expect.grpc(dup, Code.ALREADY_EXISTS, "a second Start with the live tag \"" + tag + "\"");
            ProcessRef byTag = DurableProcesses.byTag(tag);
            Expect.equal(
                    "Get{tag=\"" + tag + "\"}: process_id", id, get(ctx, byTag).getProcessId());
            DurableRecorder r = ps.attach(byTag, 0, 0, null);
            if (!r.awaitStdout("tagged\n", END)) {
                throw fail("Attach{tag=\"" + tag + "\"}: expected \"tagged\\n\", got " + r.describe());
            }
            ctx.client().sendSignal(id, Signal.SIGNAL_SIGKILL);
            ExitRecord x = Expect.ok(
                    () -> ctx.client().withStreamDeadline(END).durable().waitFor(byTag), "Wait{tag=\"" + tag + "\"}");
            Expect.equal("Wait{tag}: process_id", id, x.getProcessId());
            int again =
                    ps.detached(Command.of("true"), DurableOptions.detached().tag(tag));
            if (again == id) {
                throw fail("Start with the tag of an ended process: expected a new process id, got " + again);
            }
        }
    }

    static void id001(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.shell("read x; echo got:$x; sleep 60"));
            Expect.ok(
                    () -> ctx.client().writeStdin(id, utf8("abc\n")),
                    "process.v1 WriteStdin{process_id=" + id + "} (an id of DurableProcessService)");
            DurableRecorder r = ps.attach(DurableProcesses.byId(id), 0, 0, null);
            if (!r.awaitStdout("got:abc\n", END)) {
                throw fail("process.v1 WriteStdin \"abc\\n\" to durable process " + id
                        + ": expected the process to print got:abc, Attach got " + r.describe());
            }
            Expect.ok(
                    () -> ctx.client().sendSignal(id, Signal.SIGNAL_SIGKILL),
                    "process.v1 SendSignal{process_id=" + id + ", SIGKILL}");
            ExitRecord x = waitFor(ctx, id);
            if (x.getKind() != ExitKind.EXIT_KIND_SIGNALED || x.getSignal() != 9) {
                throw fail("process.v1 SendSignal SIGKILL to durable process " + id
                        + ": expected exit{SIGNALED, signal=9}, Wait said " + DurableRecorder.describe(exitEvent(x)));
            }
        }
    }

    static void id002(CheckContext ctx) throws Exception {
        StartRecorder v1 = ctx.start(Command.shell("echo one; read x; echo two:$x"));
        int id = ctx.init(v1);
        try (Processes ps = new Processes(ctx)) {
            ProcessInfo info = get(ctx, DurableProcesses.byId(id));
            if (info.getState() != ProcessState.PROCESS_STATE_RUNNING) {
                throw fail("Get{process_id=" + id + "} of a running process.v1 Start process: expected RUNNING, got "
                        + info.getState());
            }
            if (ps.durable().list(false).stream().noneMatch(p -> p.getProcessId() == id)) {
                throw fail("List: expected the running process.v1 Start process " + id + " to be listed");
            }
            v1.awaitStdoutContains("one\n", END);
            DurableRecorder r = ps.attach(DurableProcesses.byId(id), 0, 0, null);
            // what was written before the attach may be replayed or reported as a gap
            if (!r.await(x -> x.stdoutNext() >= 4 || x.status() != null, END)) {
                throw fail("Attach{process_id=" + id + "} from 0: expected \"one\\n\" or a gap for it, got "
                        + r.describe());
            }
            ctx.client().writeStdin(id, utf8("z\n"));
            ended(r, "Attach{process_id=" + id + "} to a process.v1 Start process");
            byte[] all = utf8("one\ntwo:z\n");
            long skipped = r.gaps().stream().mapToLong(Gap::getLength).sum();
            byte[] tail = Arrays.copyOfRange(all, (int) Math.min(all.length, skipped), all.length);
            Expect.bytes("Attach to the process.v1 Start process: stdout after the gaps", tail, r.stdout());
            Expect.equal("Attach: offsets end at what the process wrote", (long) all.length, r.stdoutNext());
            ctx.end(v1, END);
            Expect.equal("its own process.v1 Start stream: stdout", "one\ntwo:z\n", v1.stdoutText());
            Expect.equal("its own process.v1 Start stream: exit code", 0, v1.exitCode());
        }
    }

    static void attach001(CheckContext ctx) throws Exception {
        int n = 2000;
        byte[] out = expectedLines("o", n);
        byte[] err = expectedLines("e", n);
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(lines(n, null));
            waitFor(ctx, id);
            for (long[] from : new long[][] {{0, 0}, {1234, 567}, {out.length, err.length}}) {
                DurableRecorder r = ps.attachToEnd(id, from[0], from[1]);
                String what = "Attach{stdout_offset=" + from[0] + ", stderr_offset=" + from[1] + "}";
                if (!r.gaps().isEmpty()) {
                    throw fail(what + " of " + out.length + " retained bytes: expected no gap, got " + r.describe());
                }
                Expect.bytes(what + ": stdout", Arrays.copyOfRange(out, (int) from[0], out.length), r.stdout());
                Expect.bytes(what + ": stderr", Arrays.copyOfRange(err, (int) from[1], err.length), r.stderr());
            }
        }
    }

    static void attach002(CheckContext ctx) throws Exception {
        int n = 3000;
        byte[] out = expectedLines("o", n);
        byte[] err = expectedLines("e", n);
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(lines(n, "300"));
            java.io.ByteArrayOutputStream gotOut = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream gotErr = new java.io.ByteArrayOutputStream();
            long outAt = 0;
            long errAt = 0;
            int cuts = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
            while (true) {
                DurableAttachment[] h = new DurableAttachment[1];
                DurableRecorder r = ps.attach(DurableProcesses.byId(id), outAt, errAt, h);
                boolean cut = cuts < 4;
                int events = 3 + cuts * 2;
                if (cut) {
                    r.await(x -> x.events().size() >= events || x.status() != null, END);
                    h[0].detach(); // the client goes away mid-stream
                    r.awaitEnd(END);
                } else {
                    ended(r, "the last reattach");
                }
                if (!r.violations().isEmpty()) {
                    throw fail("reattach " + (cuts + 1) + ": " + r.violations().get(0) + "; " + r.describe());
                }
                if (!r.gaps().isEmpty()) {
                    throw fail("reattach " + (cuts + 1) + " from stdout_offset=" + outAt + ", stderr_offset=" + errAt
                            + ": expected no gap, got " + r.describe());
                }
                gotOut.writeBytes(r.stdout());
                gotErr.writeBytes(r.stderr());
                outAt = r.stdoutNext();
                errAt = r.stderrNext();
                if (r.exit() != null) {
                    break;
                }
                cuts++;
                if (System.nanoTime() > deadline) {
                    throw fail("the process did not end within 45 s of reattaching");
                }
            }
            Expect.bytes("stdout put together from " + (cuts + 1) + " attaches", out, gotOut.toByteArray());
            Expect.bytes("stderr put together from " + (cuts + 1) + " attaches", err, gotErr.toByteArray());
        }
    }

    static void attach003(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.shell("printf hello"));
            waitFor(ctx, id);
            for (long[] bad : new long[][] {{6, 0}, {0, 1}, {Long.MAX_VALUE, 0}}) {
                DurableRecorder r = ps.attach(DurableProcesses.byId(id), bad[0], bad[1], null);
                String what = "Attach{stdout_offset=" + bad[0] + ", stderr_offset=" + bad[1]
                        + "} of a process that wrote 5 bytes to stdout and none to stderr";
                if (!r.awaitEnd(END)) {
                    throw fail(what + ": expected OUT_OF_RANGE, the stream stayed open: " + r.describe());
                }
                if (r.status().getCode() != Code.OUT_OF_RANGE) {
                    throw fail(what + ": expected OUT_OF_RANGE, got " + r.describe());
                }
            }
            DurableRecorder atEnd = ps.attachToEnd(id, 5, 0);
            if (atEnd.stdout().length != 0) {
                throw fail(
                        "Attach{stdout_offset=5} (all that was written): expected no output, got " + atEnd.describe());
            }
        }
    }

    static void attach004(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            for (ProcessRef ref :
                    List.of(DurableProcesses.byId(UNKNOWN_ID), DurableProcesses.byTag(tag(ctx, "no-such-tag")))) {
                String r = DurableProcesses.describe(ref);
                DurableRecorder a = ps.attach(ref, 0, 0, null);
                a.awaitEnd(END);
                Status s = a.status() == null ? Status.DEADLINE_EXCEEDED : a.status();
                Expect.grpc(s, Code.NOT_FOUND, "Attach{" + r + "}");
                Expect.grpc(() -> ctx.client().durable().get(ref), Code.NOT_FOUND, "Get{" + r + "}");
                Expect.grpc(
                        () -> ctx.client().withStreamDeadline(END).durable().waitFor(ref),
                        Code.NOT_FOUND,
                        "Wait{" + r + "}");
            }
        }
    }

    static void attach005(CheckContext ctx) throws Exception {
        int n = 200_000;
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append(i).append('\n');
        }
        byte[] all = utf8(b.toString());
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(
                    Command.of("seq", "1", Integer.toString(n)),
                    DurableOptions.detached().retentionBytes(65536));
            ExitRecord x = waitFor(ctx, id);
            Expect.equal("Wait: stdout_written of seq 1 " + n, (long) all.length, x.getStdoutWritten());
            DurableRecorder r = ps.attach(DurableProcesses.byId(id), 0, 0, null);
            String what = "Attach from 0 to a process that wrote " + all.length + " bytes with retention_bytes 65536";
            r.awaitEnd(END);
            List<Gap> gaps = r.gaps();
            List<AttachEvent> ev = r.events();
            if (gaps.size() != 1 || !ev.get(0).hasGap()) {
                throw fail(what + ": expected exactly one gap, before any output, got " + r.describe());
            }
            Gap g = gaps.get(0);
            if (g.getOffset() != 0 || g.getLength() <= 0 || g.getLength() >= all.length) {
                throw fail(what + ": expected gap{offset=0, 0 < length < " + all.length + "}, got " + r.describe());
            }
            if (g.getReason() != GapReason.GAP_REASON_RETENTION) {
                throw fail(what + ": expected the gap's reason RETENTION, got " + g.getReason());
            }
            ended(r, what);
            Expect.bytes(
                    what + ": the bytes after the gap",
                    Arrays.copyOfRange(all, (int) g.getLength(), all.length),
                    r.stdout());
        }
    }

    static void attach006(CheckContext ctx) throws Exception {
        Duration every = ctx.options()
                .attachHeartbeat()
                .orElseThrow(() ->
                        new CheckSkipped("no --attach-heartbeat given: the runtime's heartbeat interval is unknown"));
        if (every.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new CheckSkipped("--attach-heartbeat " + every.toSeconds() + " s is too long to wait for here");
        }
        long sleepMs = every.toMillis() * 3 + 500;
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.of("sleep", String.format(Locale.ROOT, "%.3f", sleepMs / 1000.0)));
            DurableRecorder r = ps.attachToEnd(id, 0, 0);
            if (r.heartbeats() < 2) {
                throw fail("Attach to `sleep " + sleepMs + "ms` (silent) with --attach-heartbeat " + every.toMillis()
                        + " ms: expected at least 2 heartbeat events, got " + r.describe());
            }
        }
    }

    static void attach007(CheckContext ctx) throws Exception {
        int before = 1_000_000;
        int after = 2_000_000;
        int total = before + after;
        // The stalled attacher gets a connection of its own: only the runtime may couple the two.
        // Its receive window is fixed and small: with grpc's growing default (up to 8 MiB) the
        // whole output could fit in flight, the runtime would never see the stall, and a runtime
        // that couples attachers would pass by luck.
        // The output comes in two parts two seconds apart. The first fills the stalled attacher's
        // window; the fast one needs the second (and the exit) to end, and that only comes once the
        // stall is certain. With all output at once, a runtime that couples attachers could still
        // pass by luck: the fast attacher could take everything before the stalled one filled up.
        try (Processes ps = new Processes(ctx);
                SandboxdClient own = SandboxdClient.builder()
                        .grpcTarget(ctx.options().grpcTarget())
                        .restBase(ctx.options().restBase().toString())
                        .token(ctx.options().token())
                        .streamDeadline(Duration.ofSeconds(60))
                        .flowControlWindow(STALLED_WINDOW_BYTES)
                        .build()) {
            int id = ps.detached(Command.shell(
                    "sleep 0.5; head -c " + before + " /dev/zero; sleep 2; head -c " + after + " /dev/zero"));
            DurableAttachment stalled = own.durable().attach(DurableProcesses.byId(id), 0, 0);
            try {
                AttachEvent firstOfStalled = stalled.next(); // then it reads nothing more for now
                DurableRecorder fast = ps.attach(DurableProcesses.byId(id), 0, 0, null);
                ended(fast, "a fast attacher next to a stalled one", STALLED_BOUND);
                long fastBytes = fast.stdout().length
                        + fast.gaps().stream().mapToLong(Gap::getLength).sum();
                Expect.equal(
                        "a fast attacher next to a stalled one: stdout bytes (output + gaps)", (long) total, fastBytes);
                ExitRecord x = waitFor(ctx, id);
                Expect.equal("Wait while an attacher stalls: exit code", 0, x.getExitCode());
                // the stalled one resumes: every byte once (or reported as a gap), then the exit
                DurableRecorder rest = new DurableRecorder();
                rest.onEvent(firstOfStalled);
                for (AttachEvent e; (e = stalled.next()) != null; ) {
                    rest.onEvent(e);
                }
                rest.onEnd(Status.OK, null);
                ended(rest, "the stalled attacher, resumed");
                Expect.equal("the stalled attacher, resumed: stdout offsets end at", (long) total, rest.stdoutNext());
            } finally {
                stalled.detach();
            }
        }
    }

    static void list001(CheckContext ctx) throws Exception {
        String tag = tag(ctx, "list");
        try (Processes ps = new Processes(ctx)) {
            int running = ps.detached(
                    Command.of("sleep", "60"), DurableOptions.detached().tag(tag));
            int ended = ps.detached(Command.shell("exit 4"));
            waitFor(ctx, ended);
            List<ProcessInfo> live = Expect.ok(() -> ps.durable().list(false), "List{all: false}");
            ProcessInfo r = live.stream()
                    .filter(p -> p.getProcessId() == running)
                    .findFirst()
                    .orElseThrow(() -> fail("List{all: false}: expected running process " + running + " listed"));
            if (r.getState() != ProcessState.PROCESS_STATE_RUNNING
                    || !r.getTag().equals(tag)
                    || !r.getCommandList().equals(List.of("sleep", "60"))
                    || r.getPid() <= 0) {
                throw fail("List{all: false}: expected {process_id=" + running + ", tag=\"" + tag
                        + "\", command=[sleep, 60], RUNNING, pid > 0}, got " + r);
            }
            if (live.stream().anyMatch(p -> p.getProcessId() == ended)) {
                throw fail("List{all: false}: expected ended process " + ended + " left out");
            }
            ProcessInfo e = Expect.ok(() -> ps.durable().list(true), "List{all: true}").stream()
                    .filter(p -> p.getProcessId() == ended)
                    .findFirst()
                    .orElseThrow(() -> fail("List{all: true}: expected ended process " + ended + " listed"));
            if (e.getState() != ProcessState.PROCESS_STATE_EXITED
                    || !e.hasExit()
                    || e.getExit().getExitCode() != 4) {
                throw fail("List{all: true}: expected process " + ended + " EXITED with exit{exit_code=4}, got " + e);
            }
        }
    }

    static void list002(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.shell("yes > /dev/null & yes > /dev/null & wait"));
            ProcessRef ref = DurableProcesses.byId(id);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            ProcessInfo info = get(ctx, ref);
            if (!info.hasTree() && info.getState() == ProcessState.PROCESS_STATE_RUNNING) {
                throw fail("Get{process_id=" + id + "} of a running process: expected tree{processes, cpu_millis,"
                        + " rss_bytes}, got none");
            }
            while (info.getTree().getProcesses() < 3 || info.getTree().getCpuMillis() < 100) {
                if (System.nanoTime() > deadline) {
                    throw fail("Get{process_id=" + id + "} of `sh -c 'yes & yes & wait'`: expected tree{processes >= 3,"
                            + " cpu_millis >= 100} within 20 s, got tree{"
                            + info.getTree().toString().replace('\n', ' ')
                            + "}");
                }
                Thread.sleep(100);
                info = get(ctx, ref);
            }
            if (info.getTree().getRssBytes() <= 0) {
                throw fail("Get: expected the tree's rss_bytes > 0, got " + info.getTree());
            }
        }
    }

    static void wait001(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(Command.shell("sleep 0.5; exit 7"));
            for (String when : List.of("while it runs", "after it ended")) {
                ExitRecord x = waitFor(ctx, id);
                if (x.getKind() != ExitKind.EXIT_KIND_EXITED || x.getExitCode() != 7 || x.getProcessId() != id) {
                    throw fail("Wait{process_id=" + id + "} " + when + " for `exit 7`: expected exit{process_id=" + id
                            + ", EXITED, exit_code=7}, got " + DurableRecorder.describe(exitEvent(x)));
                }
            }
            int killed = ps.detached(Command.of("sleep", "60"));
            ctx.client().sendSignal(killed, Signal.SIGNAL_SIGKILL);
            ExitRecord k = waitFor(ctx, killed);
            if (k.getKind() != ExitKind.EXIT_KIND_SIGNALED || k.getSignal() != 9 || k.getTimedOut()) {
                throw fail("Wait for `sleep 60` after SIGKILL: expected exit{SIGNALED, signal=9}, got "
                        + DurableRecorder.describe(exitEvent(k)));
            }
        }
    }

    static void timeout001(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            // Shell and child ignore SIGTERM: only the SIGKILL after the grace ends them.
            int id = ps.detached(
                    Command.shell("trap '' TERM; sleep 120 & echo $!; wait"),
                    DurableOptions.detached().timeout(Duration.ofMillis(500)));
            DurableRecorder r = ps.attach(DurableProcesses.byId(id), 0, 0, null);
            if (!r.awaitStdout("\n", END)) {
                throw fail("Start with timeout_millis 500: expected the child's pid on stdout, got " + r.describe());
            }
            long child = Long.parseLong(r.stdoutText().strip());
            ExitRecord x = waitFor(ctx, id);
            if (!x.getTimedOut() || x.getKind() != ExitKind.EXIT_KIND_TIMED_OUT) {
                throw fail("Start [sh -c 'trap \"\" TERM; sleep 120 & ...'] with timeout_millis 500: expected"
                        + " exit{TIMED_OUT, timed_out=true}, got " + DurableRecorder.describe(exitEvent(x)));
            }
            if (!ctx.suite().awaitGone(child, Duration.ofSeconds(10))) {
                throw fail("after the server-side timeout: expected the whole tree gone, child " + child
                        + " (ignoring SIGTERM) is alive 10 s later");
            }
            ProcessInfo info = get(ctx, DurableProcesses.byId(id));
            Expect.equal("Get after the timeout: state", ProcessState.PROCESS_STATE_TIMED_OUT, info.getState());
        }
    }

    static void pty001(CheckContext ctx) throws Exception {
        try (Processes ps = new Processes(ctx)) {
            int id = ps.detached(
                    Command.shell("stty size; echo first >&2; read x; stty size"),
                    DurableOptions.detached().pty(80, 24));
            DurableAttachment[] h = new DurableAttachment[1];
            DurableRecorder first = ps.attach(DurableProcesses.byId(id), 0, 0, h);
            if (!first.awaitStdout("first", END)) {
                throw fail("Attach to a PTY process running `stty size; echo first >&2`: expected \"24 80\" and"
                        + " \"first\" on stdout, got " + first.describe());
            }
            if (!first.stdoutText().contains("24 80") || first.stderr().length != 0) {
                throw fail("Attach to a PTY process (80x24): expected \"24 80\" on stdout and no stderr event, got "
                        + first.describe());
            }
            h[0].detach();
            first.awaitEnd(END);
            long at = first.stdoutNext();
            Expect.ok(() -> ctx.client().resizeTty(id, 100, 30), "process.v1 ResizeTTY{process_id=" + id + ", 100x30}");
            Expect.ok(() -> ctx.client().writeStdin(id, utf8("\n")), "process.v1 WriteStdin{process_id=" + id + "}");
            DurableRecorder again = ps.attachToEnd(id, at, 0);
            if (!again.stdoutText().contains("30 100")) {
                throw fail("reattach at stdout_offset=" + at + " after ResizeTTY 100x30: expected \"30 100\", got "
                        + again.describe());
            }
            if (again.stdoutText().contains("24 80")) {
                throw fail("reattach at stdout_offset=" + at + ": expected only what came after that offset, got "
                        + again.describe());
            }
        }
    }
}
