package io.sandboxd.bench;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.client.Command;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.StartRecorder;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The gRPC ProcessService scenarios, each a set of per-run samples. Calls go through
 * {@link SandboxdClient}, one per channel; the bench makes the channels itself (plain
 * {@link NettyChannelBuilder} with grpc-netty's default transport and event loops, as an SDK user
 * would have) so that load can be spread over several connections, and reuses them for every call.
 */
final class GrpcBench implements Closeable {
    private final String target;
    private final String restBase;
    private final String token;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final SandboxdClient main;

    GrpcBench(String target, String restBase, String token) {
        this.target = target;
        this.restBase = restBase;
        this.token = token;
        this.main = newClient();
    }

    /** The client of the main channel (also for the REST calls that are not measured). */
    SandboxdClient client() {
        return main;
    }

    /** A client on a new channel of its own (closed by {@link #close()}). */
    SandboxdClient newClient() {
        ManagedChannel ch = NettyChannelBuilder.forTarget(target)
                .usePlaintext()
                .maxInboundMessageSize(16 << 20)
                .build();
        synchronized (channels) {
            channels.add(ch);
        }
        return SandboxdClient.builder()
                .grpcTarget(target)
                .restBase(restBase)
                .token(token)
                .channel(ch)
                .build();
    }

    private static void shutdown(SandboxdClient c) {
        c.managedChannel().shutdownNow();
    }

    /** Latency in ms of sequential Execute calls; checks exit code and stdout. */
    double[] executeLatency(int warmup, int n, String expectStdout, String... cmd) {
        ExecuteRequest req = Command.of(cmd).toExecuteRequest();
        return sequentialLatency(warmup, n, () -> main.execute(req), r -> {
            if (r.exitCode() != 0 || !r.stdoutText().equals(expectStdout)) {
                throw new IllegalStateException("Execute " + List.of(cmd) + " returned exit " + r.exitCode()
                        + " stdout " + r.stdoutText().strip());
            }
        });
    }

    /**
     * Round trip of the cheapest call of the same service: SendSignal to a process id that does
     * not exist (NOT_FOUND; any status is an answer). What the transport and both gRPC stacks
     * cost before any process is involved, to set Execute's latency against.
     */
    double[] noopLatency(int warmup, int n) {
        SendSignalRequest req = SendSignalRequest.newBuilder()
                .setProcessId(Integer.MAX_VALUE)
                .setSignal(Signal.SIGNAL_SIGTERM)
                .build();
        return sequentialLatency(
                warmup,
                n,
                () -> {
                    try {
                        main.sendSignal(req);
                    } catch (GrpcCallException e) {
                        if (e.code() == Status.Code.DEADLINE_EXCEEDED) {
                            throw e;
                        }
                    }
                    return null;
                },
                r -> {});
    }

    /** ms per call of {@code n} sequential calls after {@code warmup} untimed ones; {@code check} runs outside the timing. */
    private static <T> double[] sequentialLatency(int warmup, int n, Supplier<T> call, Consumer<T> check) {
        double[] out = new double[n];
        for (int i = -warmup; i < n; i++) {
            long t = System.nanoTime();
            T r = call.get();
            double ms = (System.nanoTime() - t) / 1e6;
            check.accept(r);
            if (i >= 0) {
                out[i] = ms;
            }
        }
        return out;
    }

    /** Execute(/bin/true) per second with {@code clients} concurrent blocking clients, one rate per window. */
    double[] executeRates(int clients, int windows, long windowMs) throws InterruptedException {
        AtomicLong ops = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecuteRequest req = Command.of("/bin/true").toExecuteRequest();
        List<SandboxdClient> own = new ArrayList<>();
        Thread[] ts = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            SandboxdClient client = newClient();
            own.add(client);
            SandboxdClient calls = client.withCallTimeout(Duration.ofSeconds(60));
            ts[c] = new Thread(
                    () -> {
                        while (!stop.get()) {
                            try {
                                if (calls.execute(req).exitCode() == 0) {
                                    ops.incrementAndGet();
                                } else {
                                    errors.incrementAndGet();
                                }
                            } catch (RuntimeException e) {
                                errors.incrementAndGet();
                            }
                        }
                    },
                    "exec-client-" + c);
            ts[c].start();
        }
        try {
            Thread.sleep(Math.min(1000, windowMs)); // warm up: every client has a connection and calls in flight
            double[] rates = new double[windows];
            for (int w = 0; w < windows; w++) {
                long o0 = ops.get();
                long t0 = System.nanoTime();
                Thread.sleep(windowMs);
                rates[w] = (ops.get() - o0) / ((System.nanoTime() - t0) / 1e9);
            }
            if (errors.get() > 0) {
                throw new IllegalStateException(errors.get() + " Execute calls failed with " + clients + " clients");
            }
            return rates;
        } finally {
            stop.set(true);
            for (Thread t : ts) {
                t.join(120_000);
            }
            own.forEach(GrpcBench::shutdown);
        }
    }

    /** MB/s of Start(head -c bytes /dev/zero) as received by the client, one value per run. */
    double[] startThroughput(long bytes, int runs) {
        SandboxdClient streams = main.withStreamDeadline(Duration.ofSeconds(600));
        double[] out = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t = System.nanoTime();
            StartRecorder r = StartRecorder.countingOnly();
            RemoteProcess p = streams.start(Command.of("head", "-c", Long.toString(bytes), "/dev/zero"), r);
            String error = awaitEnd(p, r, Duration.ofSeconds(605));
            double s = (System.nanoTime() - t) / 1e9;
            if (error != null || r.stdoutBytes() != bytes || !Integer.valueOf(0).equals(r.exitCode())) {
                throw new IllegalStateException("Start stream: got " + r.stdoutBytes() + " of " + bytes
                        + " bytes, exit " + r.exitCode() + (error != null ? ", error " + error : ""));
            }
            out[i] = bytes / 1e6 / s;
        }
        return out;
    }

    /**
     * Waits for a stream to end on the process's latch (the recorder's monitor would wake this
     * thread for every event), then for its recorder's last callback; null if it ended OK.
     */
    private static String awaitEnd(RemoteProcess p, StartRecorder r, Duration timeout) {
        if (!p.awaitEnd(timeout) || !r.awaitEnd(Duration.ofSeconds(5))) {
            p.cancel();
            return "stream did not end";
        }
        return r.status().isOk() ? null : String.valueOf(r.status());
    }

    /** ms from the Start call to the first stdout byte of {@code echo hi}, as the event arrived. */
    double[] startTimeToFirstByte(int warmup, int n) {
        SandboxdClient streams = main.withStreamDeadline(Duration.ofSeconds(30));
        Command echo = Command.of("/bin/echo", "hi");
        double[] out = new double[n];
        for (int i = -warmup; i < n; i++) {
            StartRecorder r = new StartRecorder(); // event times count from here
            String error = awaitEnd(streams.start(echo, r), r, Duration.ofSeconds(35));
            if (error != null) {
                throw new IllegalStateException("Start(echo hi): " + error);
            }
            double first = -1;
            for (StartRecorder.Event e : r.events()) {
                StartResponse ev = e.message();
                if (ev.hasStdout() && !ev.getStdout().isEmpty()) {
                    first = e.nanos() / 1e6;
                    break;
                }
            }
            if (first < 0) {
                throw new IllegalStateException("Start(echo hi) produced no stdout");
            }
            if (i >= 0) {
                out[i] = first;
            }
        }
        return out;
    }

    record ConcurrentResult(
            int streams, int completed, int errors, double allReadyMs, double totalMs, String firstError) {}

    /**
     * {@code n} concurrent Start streams of {@code sh -c 'echo ready; read x; echo done'}, spread
     * over one channel per 100 streams. Once every stream said "ready" (all live at once), {@code
     * whileLive} runs (e.g. to sample the daemon's RSS); then each gets stdin EOF and must end with
     * exit 0 and exactly "ready\ndone\n".
     */
    ConcurrentResult concurrentStreams(int n, Runnable whileLive) throws InterruptedException {
        Command cmd = Command.of("/bin/sh", "-c", "echo ready; read x; echo done");
        List<SandboxdClient> clients = new ArrayList<>();
        for (int i = 0; i < (n + 99) / 100; i++) {
            clients.add(newClient());
        }
        StartRecorder[] rs = new StartRecorder[n];
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            rs[i] = new StartRecorder();
            clients.get(i % clients.size())
                    .withStreamDeadline(Duration.ofSeconds(180))
                    .start(cmd, rs[i]);
        }
        long readyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (StartRecorder r : rs) {
            r.awaitStdoutContains("ready", Duration.ofNanos(Math.max(0, readyDeadline - System.nanoTime())));
        }
        double allReady = (System.nanoTime() - t0) / 1e6;
        whileLive.run();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger eofErrors = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StartRecorder r = rs[i];
            SandboxdClient c = clients.get(i % clients.size());
            fs.add(pool.submit(() -> {
                OptionalInt pid = r.awaitInit(Duration.ZERO);
                if (pid.isEmpty()) {
                    return;
                }
                try {
                    c.closeStdin(pid.getAsInt());
                } catch (RuntimeException e) {
                    eofErrors.incrementAndGet();
                }
            }));
        }
        pool.shutdown();
        pool.awaitTermination(120, TimeUnit.SECONDS);
        long doneDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int completed = 0;
        int errors = 0;
        String firstError = null;
        for (StartRecorder r : rs) {
            boolean ended = r.awaitEnd(Duration.ofNanos(Math.max(0, doneDeadline - System.nanoTime())));
            String text = r.stdoutText();
            if (ended && r.status().isOk() && Integer.valueOf(0).equals(r.exitCode()) && text.equals("ready\ndone\n")) {
                completed++;
            } else {
                errors++;
                if (firstError == null) {
                    firstError = !ended
                            ? "stream did not end"
                            : !r.status().isOk()
                                    ? String.valueOf(r.status())
                                    : "exit " + r.exitCode() + " stdout "
                                            + text.strip().replace('\n', '|');
                }
            }
        }
        double total = (System.nanoTime() - t0) / 1e6;
        clients.forEach(GrpcBench::shutdown);
        if (eofErrors.get() > 0 && firstError == null) {
            firstError = eofErrors.get() + " WriteStdin(eof) calls failed";
        }
        return new ConcurrentResult(n, completed, errors, allReady, total, firstError);
    }

    @Override
    public void close() {
        main.close();
        synchronized (channels) {
            for (ManagedChannel ch : channels) {
                ch.shutdownNow();
            }
        }
    }
}
