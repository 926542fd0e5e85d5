package io.sandboxd.client;

import static io.sandboxd.client.DurableProcesses.byId;
import static io.sandboxd.client.DurableProcesses.byTag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessState;
import io.sandboxd.api.durable.v1alpha1.Stream;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.testkit.RunningDaemon;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link DurableProcesses} against the packaged daemon: detached starts, replay, offsets, refs, errors. */
class DurableCallsTest {
    static RunningDaemon daemon;
    static SandboxdClient client;
    static DurableProcesses d;

    @BeforeAll
    static void start() throws Exception {
        String state = Files.createTempDirectory("durable-calls-state").toString();
        daemon = TestDaemons.start(
                "durable-calls",
                s -> s.withArgs("--state-dir", state, "--timeout-grace", "1s", "--attach-heartbeat", "1s"));
        client = TestDaemons.client(daemon);
        d = client.durable();
    }

    @AfterAll
    static void stop() {
        client.close();
        daemon.close();
    }

    /** Everything of one attach, pulled to the end. */
    record Seen(String stdout, String stderr, List<AttachEvent> events, ExitRecord exit) {}

    static Seen drain(DurableAttachment a) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<AttachEvent> events = new ArrayList<>();
        ExitRecord exit = null;
        for (AttachEvent ev; (ev = a.next()) != null; ) {
            events.add(ev);
            if (ev.hasOutput()) {
                (ev.getOutput().getStream() == Stream.STREAM_STDERR ? err : out)
                        .writeBytes(ev.getOutput().getData().toByteArray());
            } else if (ev.hasExit()) {
                exit = ev.getExit();
            }
        }
        return new Seen(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), events, exit);
    }

    @Test
    void startDetachedReturnsAtOnceThenAttachReplaysFromZeroAndDeliversTheExit() {
        long t0 = System.nanoTime();
        int id = d.start(
                Command.shell("echo one; echo two >&2; sleep 1; echo three; exit 5"), DurableOptions.detached());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(900));
        assertThat(id).isPositive();
        assertThat(d.get(byId(id)).getState()).isEqualTo(ProcessState.PROCESS_STATE_RUNNING);
        try (DurableAttachment a = d.attach(byId(id), 0, 0)) {
            Seen s = drain(a);
            assertThat(s.stdout()).isEqualTo("one\nthree\n");
            assertThat(s.stderr()).isEqualTo("two\n");
            assertThat(s.exit().getKind()).isEqualTo(ExitKind.EXIT_KIND_EXITED);
            assertThat(s.exit().getExitCode()).isEqualTo(5);
            assertThat(a.status().isOk()).isTrue();
            // every output event carries its offset: contiguous per stream
            long next = 0;
            for (AttachEvent ev : s.events()) {
                if (ev.hasOutput() && ev.getOutput().getStream() == Stream.STREAM_STDOUT) {
                    assertThat(ev.getOutput().getOffset()).isEqualTo(next);
                    next += ev.getOutput().getData().size();
                }
            }
        }
        assertThat(DurableProcesses.shellExitCode(d.waitFor(byId(id)))).isEqualTo(5);
    }

    @Test
    void attachFromAnOffsetGetsTheRestOnly() {
        int id = d.start(Command.shell("printf 0123456789; printf abcdef >&2"), DurableOptions.detached());
        d.waitFor(byId(id));
        Seen s = drain(d.attach(byId(id), 4, 2));
        assertThat(s.stdout()).isEqualTo("456789");
        assertThat(s.stderr()).isEqualTo("cdef");
        AttachEvent first = s.events().stream()
                .filter(AttachEvent::hasOutput)
                .filter(e -> e.getOutput().getStream() == Stream.STREAM_STDOUT)
                .findFirst()
                .orElseThrow();
        assertThat(first.getOutput().getOffset()).isEqualTo(4);
        // exactly at the end: nothing but the exit
        Seen end = drain(d.attach(byId(id), 10, 6));
        assertThat(end.stdout()).isEmpty();
        assertThat(end.exit()).isNotNull();
    }

    @Test
    void outputBeyondTheRetentionComesAsOneGapThenTheRest() {
        int id = d.start(
                Command.shell("head -c 1048576 /dev/zero"),
                DurableOptions.detached().retentionBytes(4096));
        d.waitFor(byId(id));
        long next = 0;
        long gapped = 0;
        for (AttachEvent ev : drain(d.attach(byId(id), 0, 0)).events()) {
            if (ev.hasGap()) {
                assertThat(ev.getGap().getStream()).isEqualTo(Stream.STREAM_STDOUT);
                assertThat(ev.getGap().getOffset()).isEqualTo(next);
                next += ev.getGap().getLength();
                gapped += ev.getGap().getLength();
            } else if (ev.hasOutput()) {
                assertThat(ev.getOutput().getOffset()).isEqualTo(next);
                next += ev.getOutput().getData().size();
            }
        }
        assertThat(next).isEqualTo(1048576);
        assertThat(gapped).isPositive();
    }

    @Test
    void anOffsetBeyondWhatWasWrittenIsOutOfRange() {
        int id = d.start(Command.shell("printf abc"), DurableOptions.detached());
        d.waitFor(byId(id));
        DurableAttachment a = d.attach(byId(id), 4, 0);
        assertThatThrownBy(() -> drain(a)).isInstanceOfSatisfying(GrpcCallException.class, e -> {
            assertThat(e.code()).isEqualTo(Status.Code.OUT_OF_RANGE);
            assertThat(e.method()).isEqualTo("Attach");
        });
    }

    @Test
    void unknownIdsAndTagsAreNotFoundEverywhere() {
        for (var ref : List.of(byId(999_999), byTag("no-such-tag"))) {
            assertThatThrownBy(() -> d.get(ref))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
            assertThatThrownBy(() -> d.waitFor(ref))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
            assertThatThrownBy(() -> drain(d.attach(ref, 0, 0)))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
            assertThatThrownBy(() -> d.kill(ref, Signal.SIGNAL_SIGTERM))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
        }
    }

    @Test
    void tagsReferToTheProcessAndAreUniqueAmongLiveOnes() {
        int id = d.start(Command.of("sleep", "100"), DurableOptions.detached().tag("lib-tagged"));
        try {
            assertThat(d.get(byTag("lib-tagged")).getProcessId()).isEqualTo(id);
            assertThat(DurableProcesses.ref("lib-tagged")).isEqualTo(byTag("lib-tagged"));
            assertThat(DurableProcesses.ref(Integer.toString(id))).isEqualTo(byId(id));
            assertThatThrownBy(() -> d.start(
                            Command.of("true"), DurableOptions.detached().tag("lib-tagged")))
                    .isInstanceOfSatisfying(
                            GrpcCallException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.ALREADY_EXISTS));
        } finally {
            d.kill(byTag("lib-tagged"), Signal.SIGNAL_SIGKILL);
        }
        ExitRecord r = d.waitFor(byTag("lib-tagged"));
        assertThat(r.getKind()).isEqualTo(ExitKind.EXIT_KIND_SIGNALED);
        assertThat(DurableProcesses.shellExitCode(r)).isEqualTo(137);
    }

    @Test
    void listShowsRunningOnesAndWithAllTheEndedOnes() {
        int running = d.start(Command.of("sleep", "100"), DurableOptions.detached());
        int ended = d.start(Command.of("true"), DurableOptions.detached());
        try {
            d.waitFor(byId(ended));
            List<ProcessInfo> live = d.list(false);
            assertThat(live)
                    .extracting(ProcessInfo::getProcessId)
                    .contains(running)
                    .doesNotContain(ended);
            ProcessInfo p = live.stream()
                    .filter(i -> i.getProcessId() == running)
                    .findFirst()
                    .orElseThrow();
            assertThat(p.getCommandList()).containsExactly("sleep", "100");
            assertThat(p.getPid()).isPositive();
            assertThat(d.list(true)).extracting(ProcessInfo::getProcessId).contains(running, ended);
            ProcessInfo e = d.get(byId(ended));
            assertThat(e.getState()).isEqualTo(ProcessState.PROCESS_STATE_EXITED);
            assertThat(e.getExit().getExitCode()).isZero();
        } finally {
            d.kill(byId(running), Signal.SIGNAL_SIGKILL);
        }
    }

    @Test
    void killWithTermThenWaitSays143AndATimeoutSays124() {
        int id = d.start(Command.of("sleep", "100"), DurableOptions.detached());
        d.kill(byId(id), Signal.SIGNAL_SIGTERM);
        assertThat(DurableProcesses.shellExitCode(d.waitFor(byId(id)))).isEqualTo(143);

        int t = d.start(Command.of("sleep", "100"), DurableOptions.detached().timeout(Duration.ofMillis(300)));
        ExitRecord r = d.waitFor(byId(t));
        assertThat(r.getTimedOut()).isTrue();
        assertThat(DurableProcesses.shellExitCode(r)).isEqualTo(124);
    }

    @Test
    void pushModeAndStartAttachedSeeStartedOutputAndExit() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        List<AttachEvent> events = new ArrayList<>();
        AtomicReference<Status> end = new AtomicReference<>();
        d.startAttached(Command.shell("echo hi"), DurableOptions.defaults(), new DurableListener() {
            @Override
            public void onEvent(AttachEvent event) {
                events.add(event);
            }

            @Override
            public void onEnd(Status status, io.grpc.Metadata trailers) {
                end.set(status);
                done.countDown();
            }
        });
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(end.get().isOk()).isTrue();
        assertThat(events.get(0).hasStarted()).isTrue();
        assertThat(events.get(events.size() - 1).hasExit()).isTrue();
        assertThat(events)
                .anyMatch(e ->
                        e.hasOutput() && e.getOutput().getData().toStringUtf8().equals("hi\n"));
    }

    @Test
    void detachingAnAttachLeavesTheProcessRunning() {
        int id = d.start(Command.shell("while :; do echo tick; sleep 0.1; done"), DurableOptions.detached());
        try {
            DurableAttachment a = d.attach(byId(id), 0, 0);
            assertThat(a.next()).isNotNull();
            a.detach();
            assertThat(a.awaitEnd(Duration.ofSeconds(10))).isTrue();
            assertThatThrownBy(() -> drain(a)).isInstanceOf(GrpcCallException.class);
            assertThat(d.get(byId(id)).getState()).isEqualTo(ProcessState.PROCESS_STATE_RUNNING);
        } finally {
            d.kill(byId(id), Signal.SIGNAL_SIGKILL);
        }
    }

    @Test
    void startWithoutDetachIsRefusedByStartAndOptionsAreValidated() {
        assertThatThrownBy(() -> d.start(Command.of("true"), DurableOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DurableOptions.defaults().timeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.attach(byId(1), -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(DurableOptions.detached()
                        .timeout(Duration.ofSeconds(2))
                        .tag("x")
                        .retentionBytes(4096)
                        .toStartRequest(Command.of("a"))
                        .getTimeoutMillis())
                .isEqualTo(2000);
    }
}
