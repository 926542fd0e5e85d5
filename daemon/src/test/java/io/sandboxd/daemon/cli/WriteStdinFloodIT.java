package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: 60 concurrent 4 MiB WriteStdin calls on one connection to a process that never reads,
 * against the packaged daemon at -Xmx64m. Before: direct memory ran out and the whole connection
 * was torn down. Now: the excess gets RESOURCE_EXHAUSTED naming the limit, other calls on the same
 * connection keep working, health stays 200, RSS grows by less than the documented bound (heap +
 * 16 MiB being received + 64 KiB per waiting call + the 16 MiB stdin budget; before: +130 MiB).
 */
class WriteStdinFloodIT {
    static final int CALLS = 60;
    static final int SIZE = 4 * 1024 * 1024 - 64; // the largest WriteStdin that fits the 4 MiB message limit

    @TempDir
    Path tmp;

    @Test
    void floodOfLargeWritesToAStalledProcess() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        try (RunningDaemon d = DaemonSpec.packagedJar()
                .withJvmOptions("-Xmx64m")
                .withRootDir(root)
                .withLogs(tmp, "daemon")
                .withReadyTimeout(Duration.ofSeconds(60))
                .start()) {
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", d.grpcPort())
                    .usePlaintext()
                    .build();
            try {
                ProcessServiceGrpc.ProcessServiceStub async = ProcessServiceGrpc.newStub(ch);
                CompletableFuture<Integer> id = new CompletableFuture<>();
                async.start(
                        StartRequest.newBuilder()
                                .setConfig(ProcessConfig.newBuilder()
                                        .addCommand("sleep")
                                        .addCommand("600"))
                                .build(),
                        new StreamObserver<StartResponse>() {
                            public void onNext(StartResponse r) {
                                if (r.hasInit()) {
                                    id.complete(r.getInit().getProcessId());
                                }
                            }

                            public void onError(Throwable t) {
                                id.completeExceptionally(t);
                            }

                            public void onCompleted() {}
                        });
                int pid = id.get(30, TimeUnit.SECONDS);
                long rssBefore = d.observer().rssBytes() / 1024;
                AtomicBoolean done = new AtomicBoolean();
                AtomicLong peak = new AtomicLong(rssBefore);
                List<Integer> health = new ArrayList<>();
                Thread sampler = new Thread(() -> {
                    while (!done.get()) {
                        try {
                            peak.accumulateAndGet(d.observer().rssBytes() / 1024, Math::max);
                            synchronized (health) {
                                health.add(status(d, "/v1/health"));
                            }
                            Thread.sleep(50);
                        } catch (Exception e) {
                            return;
                        }
                    }
                });
                sampler.start();

                ByteString payload = ByteString.copyFrom(new byte[SIZE]);
                List<CompletableFuture<Status>> calls = new ArrayList<>();
                for (int i = 0; i < CALLS; i++) {
                    CompletableFuture<Status> f = new CompletableFuture<>();
                    // no deadline to race on a loaded machine: the write left waiting for a reader
                    // ends when the process is killed below
                    async.withDeadlineAfter(300, TimeUnit.SECONDS)
                            .writeStdin(
                                    WriteStdinRequest.newBuilder()
                                            .setProcessId(pid)
                                            .setInput(payload)
                                            .build(),
                                    new StreamObserver<WriteStdinResponse>() {
                                        public void onNext(WriteStdinResponse r) {}

                                        public void onError(Throwable t) {
                                            f.complete(Status.fromThrowable(t));
                                        }

                                        public void onCompleted() {
                                            f.complete(Status.OK);
                                        }
                                    });
                    calls.add(f);
                }
                // the same connection keeps serving other calls meanwhile
                ProcessServiceGrpc.ProcessServiceBlockingStub blocking =
                        ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(120, TimeUnit.SECONDS);
                assertThat(blocking.execute(ExecuteRequest.newBuilder()
                                        .setConfig(ProcessConfig.newBuilder()
                                                .addCommand("echo")
                                                .addCommand("still here"))
                                        .build())
                                .getStdout()
                                .toStringUtf8())
                        .isEqualTo("still here\n");
                // all but the write that went into the empty queue are answered without waiting
                // for the process (which never reads); then the process goes, and that write with it
                Poll.until(
                        Duration.ofSeconds(240),
                        () -> calls.stream().filter(CompletableFuture::isDone).count() >= CALLS - 1);
                int answeredBeforeKill =
                        (int) calls.stream().filter(CompletableFuture::isDone).count();
                blocking.sendSignal(SendSignalRequest.newBuilder()
                        .setProcessId(pid)
                        .setSignal(Signal.SIGNAL_SIGKILL)
                        .build());

                Map<Status.Code, Integer> codes = new TreeMap<>();
                String exhausted = null;
                for (CompletableFuture<Status> f : calls) {
                    Status s = f.get(60, TimeUnit.SECONDS);
                    codes.merge(s.getCode(), 1, Integer::sum);
                    if (s.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                        exhausted = s.getDescription();
                    }
                }
                done.set(true);
                sampler.join();
                System.out.printf(
                        "60 x 4 MiB WriteStdin to a process that does not read: %s (%d answered before the"
                                + " process was killed); \"%s\"; daemon RSS %d MiB before, peak %d MiB (-Xmx64m)%n",
                        codes, answeredBeforeKill, exhausted, rssBefore / 1024, peak.get() / 1024);
                assertThat(answeredBeforeKill).isGreaterThanOrEqualTo(CALLS - 4);
                // the waiting write: written (OK) or ended by the exit (FAILED_PRECONDITION)
                assertThat(codes.keySet())
                        .isSubsetOf(Status.Code.RESOURCE_EXHAUSTED, Status.Code.FAILED_PRECONDITION, Status.Code.OK);
                assertThat(codes.getOrDefault(Status.Code.RESOURCE_EXHAUSTED, 0))
                        .isGreaterThanOrEqualTo(CALLS - 4);
                assertThat(exhausted).contains("limit");
                assertThat(health).isNotEmpty().containsOnly(200);
                // the documented bound: RSS grows by at most the heap, what one connection may be
                // receiving (4 x 4 MiB, 64 KiB per waiting call) and the daemon-wide stdin budget
                long boundKiB = 64 * 1024 + 16 * 1024 + CALLS * 64 + 16 * 1024;
                assertThat(peak.get() - rssBefore).as("RSS growth in KiB").isLessThanOrEqualTo(boundKiB);
                // and afterwards, on the very same connection
                blocking = ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(120, TimeUnit.SECONDS);
                assertThat(blocking.execute(ExecuteRequest.newBuilder()
                                        .setConfig(ProcessConfig.newBuilder().addCommand("true"))
                                        .build())
                                .getExitCode())
                        .isZero();
                assertThat(d.stdout() + d.stderr())
                        .doesNotContain("OutOfMemoryError")
                        .doesNotContain("OutOfDirectMemory");
            } finally {
                ch.shutdownNow();
            }
        }
    }

    /** The status of a GET on a new connection, or -1 if there was no answer (which the health check counts). */
    static int status(RunningDaemon d, String path) {
        try {
            return RawHttp.exchange(
                            "127.0.0.1", d.restPort(), RawRequest.get(path).closing(), Duration.ofSeconds(5))
                    .status();
        } catch (IOException e) {
            return -1;
        }
    }
}
