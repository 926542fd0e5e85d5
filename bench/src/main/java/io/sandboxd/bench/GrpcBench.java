package io.sandboxd.bench;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessConfig;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The gRPC ProcessService scenarios, each a set of per-run samples. */
final class GrpcBench implements Closeable {
    private final String target;
    private final String token;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final ManagedChannel main;

    GrpcBench(String target, String token) {
        this.target = target;
        this.token = token;
        this.main = newChannel();
    }

    ManagedChannel newChannel() {
        NettyChannelBuilder b = NettyChannelBuilder.forTarget(target).usePlaintext()
                .maxInboundMessageSize(16 << 20);
        if (token != null) {
            b.intercept(new BearerToken(token));
        }
        ManagedChannel ch = b.build();
        synchronized (channels) {
            channels.add(ch);
        }
        return ch;
    }

    static ExecuteRequest execute(String... cmd) {
        return ExecuteRequest.newBuilder().setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(cmd))).build();
    }

    static StartRequest start(String... cmd) {
        return StartRequest.newBuilder().setConfig(ProcessConfig.newBuilder().addAllCommand(List.of(cmd))).build();
    }

    /** A cheap call that proves the service answers: SendSignal to an id that cannot exist. */
    boolean answers() {
        try {
            ProcessServiceGrpc.newBlockingStub(main).withDeadlineAfter(2, TimeUnit.SECONDS)
                    .sendSignal(SendSignalRequest.newBuilder().setProcessId(Integer.MAX_VALUE)
                            .setSignal(Signal.SIGNAL_SIGTERM).build());
            return true;
        } catch (StatusRuntimeException e) {
            Status.Code c = e.getStatus().getCode();
            return c != Status.Code.UNAVAILABLE && c != Status.Code.DEADLINE_EXCEEDED;
        }
    }

    /** Latency in ms of sequential Execute calls; checks exit code and stdout. */
    double[] executeLatency(int warmup, int n, String expectStdout, String... cmd) {
        ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(main);
        ExecuteRequest req = execute(cmd);
        return sequentialLatency(warmup, n, () -> stub.withDeadlineAfter(30, TimeUnit.SECONDS).execute(req), r -> {
            if (r.getExitCode() != 0 || !r.getStdout().toStringUtf8().equals(expectStdout)) {
                throw new IllegalStateException("Execute " + List.of(cmd) + " returned exit " + r.getExitCode()
                        + " stdout " + r.getStdout().toStringUtf8().strip());
            }
        });
    }

    /**
     * Round trip of the cheapest call of the same service: SendSignal to a process id that does
     * not exist (NOT_FOUND; any status is an answer). What the transport and both gRPC stacks
     * cost before any process is involved, to set Execute's latency against.
     */
    double[] noopLatency(int warmup, int n) {
        ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(main);
        SendSignalRequest req = SendSignalRequest.newBuilder().setProcessId(Integer.MAX_VALUE)
                .setSignal(Signal.SIGNAL_SIGTERM).build();
        return sequentialLatency(warmup, n, () -> {
            try {
                return stub.withDeadlineAfter(30, TimeUnit.SECONDS).sendSignal(req);
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
                    throw e;
                }
                return null;
            }
        }, r -> { });
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
        ExecuteRequest req = execute("/bin/true");
        List<ManagedChannel> chs = new ArrayList<>();
        Thread[] ts = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            ManagedChannel ch = newChannel();
            chs.add(ch);
            ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(ch);
            ts[c] = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        if (stub.withDeadlineAfter(60, TimeUnit.SECONDS).execute(req).getExitCode() == 0) {
                            ops.incrementAndGet();
                        } else {
                            errors.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                }
            }, "exec-client-" + c);
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
            for (ManagedChannel ch : chs) {
                ch.shutdownNow();
            }
        }
    }

    /** MB/s of Start(head -c bytes /dev/zero) as received by the client, one value per run. */
    double[] startThroughput(long bytes, int runs) throws InterruptedException {
        double[] out = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t = System.nanoTime();
            StreamResult r = startAndCollect(start("head", "-c", Long.toString(bytes), "/dev/zero"), 600, false);
            double s = (System.nanoTime() - t) / 1e9;
            if (r.error != null || r.stdoutBytes != bytes || r.exitCode != 0) {
                throw new IllegalStateException("Start stream: got " + r.stdoutBytes + " of " + bytes
                        + " bytes, exit " + r.exitCode + (r.error != null ? ", error " + r.error : ""));
            }
            out[i] = bytes / 1e6 / s;
        }
        return out;
    }

    /** ms from the Start call to the first stdout byte of {@code echo hi}. */
    double[] startTimeToFirstByte(int warmup, int n) {
        ProcessServiceGrpc.ProcessServiceBlockingStub stub = ProcessServiceGrpc.newBlockingStub(main);
        StartRequest req = start("/bin/echo", "hi");
        double[] out = new double[n];
        for (int i = -warmup; i < n; i++) {
            long t = System.nanoTime();
            Iterator<StartResponse> it = stub.withDeadlineAfter(30, TimeUnit.SECONDS).start(req);
            double first = -1;
            while (it.hasNext()) {
                StartResponse ev = it.next();
                if (first < 0 && ev.hasStdout() && !ev.getStdout().isEmpty()) {
                    first = (System.nanoTime() - t) / 1e6;
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

    static final class StreamResult {
        volatile int pid;
        volatile long stdoutBytes;
        volatile int exitCode = Integer.MIN_VALUE;
        volatile Throwable error;
        final StringBuilder text = new StringBuilder();
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
    }

    private StreamResult startAndCollect(StartRequest req, int deadlineSec, boolean keepText) throws InterruptedException {
        StreamResult r = new StreamResult();
        ProcessServiceGrpc.newStub(main).withDeadlineAfter(deadlineSec, TimeUnit.SECONDS).start(req, observer(r, keepText));
        if (!r.done.await(deadlineSec + 5L, TimeUnit.SECONDS)) {
            r.error = new IllegalStateException("stream did not end");
        }
        return r;
    }

    private static StreamObserver<StartResponse> observer(StreamResult r, boolean keepText) {
        return new StreamObserver<>() {
            @Override
            public void onNext(StartResponse ev) {
                switch (ev.getEventCase()) {
                    case INIT -> r.pid = ev.getInit().getProcessId();
                    case STDOUT -> {
                        ByteString b = ev.getStdout();
                        r.stdoutBytes += b.size();
                        if (keepText) {
                            synchronized (r.text) {
                                r.text.append(b.toStringUtf8());
                                if (r.text.indexOf("ready") >= 0) {
                                    r.ready.countDown();
                                }
                            }
                        }
                    }
                    case EXIT -> r.exitCode = ev.getExit().getExitCode();
                    default -> {
                    }
                }
            }

            @Override
            public void onError(Throwable t) {
                r.error = t;
                r.ready.countDown();
                r.done.countDown();
            }

            @Override
            public void onCompleted() {
                r.ready.countDown();
                r.done.countDown();
            }
        };
    }

    record ConcurrentResult(int streams, int completed, int errors, double allReadyMs, double totalMs, String firstError) {
    }

    /**
     * {@code n} concurrent Start streams of {@code sh -c 'echo ready; read x; echo done'}, spread
     * over one channel per 100 streams. Once every stream said "ready" (all live at once), {@code
     * whileLive} runs (e.g. to sample the daemon's RSS); then each gets stdin EOF and must end with
     * exit 0 and exactly "ready\ndone\n".
     */
    ConcurrentResult concurrentStreams(int n, Runnable whileLive) throws InterruptedException {
        StartRequest req = start("/bin/sh", "-c", "echo ready; read x; echo done");
        List<ManagedChannel> chs = new ArrayList<>();
        for (int i = 0; i < (n + 99) / 100; i++) {
            chs.add(newChannel());
        }
        StreamResult[] rs = new StreamResult[n];
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            rs[i] = new StreamResult();
            ProcessServiceGrpc.newStub(chs.get(i % chs.size())).withDeadlineAfter(180, TimeUnit.SECONDS)
                    .start(req, observer(rs[i], true));
        }
        long readyDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (StreamResult r : rs) {
            r.ready.await(Math.max(0, readyDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        double allReady = (System.nanoTime() - t0) / 1e6;
        whileLive.run();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger eofErrors = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StreamResult r = rs[i];
            ManagedChannel ch = chs.get(i % chs.size());
            fs.add(pool.submit(() -> {
                if (r.pid <= 0) {
                    return;
                }
                try {
                    ProcessServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS).writeStdin(
                            WriteStdinRequest.newBuilder().setProcessId(r.pid).setEof(Empty.getDefaultInstance()).build());
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
        for (StreamResult r : rs) {
            boolean ended = r.done.await(Math.max(0, doneDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            String text;
            synchronized (r.text) {
                text = r.text.toString();
            }
            if (ended && r.error == null && r.exitCode == 0 && text.equals("ready\ndone\n")) {
                completed++;
            } else {
                errors++;
                if (firstError == null) {
                    firstError = !ended ? "stream did not end" : r.error != null ? String.valueOf(r.error)
                            : "exit " + r.exitCode + " stdout " + text.strip().replace('\n', '|');
                }
            }
        }
        double total = (System.nanoTime() - t0) / 1e6;
        for (ManagedChannel ch : chs) {
            ch.shutdownNow();
        }
        if (eofErrors.get() > 0 && firstError == null) {
            firstError = eofErrors.get() + " WriteStdin(eof) calls failed";
        }
        return new ConcurrentResult(n, completed, errors, allReady, total, firstError);
    }

    @Override
    public void close() throws IOException {
        synchronized (channels) {
            for (ManagedChannel ch : channels) {
                ch.shutdownNow();
            }
        }
    }

    private static final class BearerToken implements ClientInterceptor {
        private static final Metadata.Key<String> AUTH = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
        private final String token;

        BearerToken(String token) {
            this.token = token;
        }

        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> m, CallOptions o, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(m, o)) {
                @Override
                public void start(Listener<A> l, Metadata h) {
                    h.put(AUTH, "Bearer " + token);
                    super.start(l, h);
                }
            };
        }
    }
}
