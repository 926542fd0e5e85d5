package io.sandboxd.daemon.grpc;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.code.v1alpha1.CodeContextServiceGrpc;
import io.sandboxd.api.code.v1alpha1.ContextInfo;
import io.sandboxd.api.code.v1alpha1.CreateContextRequest;
import io.sandboxd.api.code.v1alpha1.ExecuteEvent;
import io.sandboxd.api.code.v1alpha1.ExecuteRequest;
import io.sandboxd.api.code.v1alpha1.ExecutionStatus;
import io.sandboxd.api.code.v1alpha1.ListRequest;
import io.sandboxd.daemon.cli.Daemon;
import io.sandboxd.daemon.code.CodeSettings;
import io.sandboxd.daemon.config.DurableConfig;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** A real daemon with code contexts on loopback, a grpc-java channel, and helpers to run code. */
final class CodeDaemon implements AutoCloseable {
    final Daemon daemon;
    final Metrics metrics = new Metrics();
    final ManagedChannel channel;
    final Path root;
    final Path state;

    /** What one Execute streamed: the events before the status, and the status. */
    record Run(List<ExecuteEvent> outputs, ExecutionStatus status) {
        String stdout() {
            return outputs.stream()
                    .filter(e -> e.hasStream() && e.getStream().getNameValue() == 1)
                    .map(e -> e.getStream().getText())
                    .collect(Collectors.joining());
        }

        String stderr() {
            return outputs.stream()
                    .filter(e -> e.hasStream() && e.getStream().getNameValue() == 2)
                    .map(e -> e.getStream().getText())
                    .collect(Collectors.joining());
        }
    }

    CodeDaemon(Path tmp, CodeSettings settings) throws Exception {
        this(tmp, settings, ChildCredentials.INHERIT);
    }

    /** @param runAs who the kernels run as (a --run-as-user daemon) */
    CodeDaemon(Path tmp, CodeSettings settings, ChildCredentials runAs) throws Exception {
        root = Files.createDirectories(tmp.resolve("root")).toRealPath();
        state = Files.createDirectories(tmp.resolve("state"));
        daemon = new Daemon(
                TestConfig.withRunAs(TestConfig.forRoot(root), runAs),
                DurableConfig.defaults(state),
                settings,
                null,
                metrics,
                TestConfig.silentLog());
        daemon.start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", daemon.grpcPort())
                .usePlaintext()
                .maxInboundMessageSize(64 * 1024 * 1024)
                .build();
    }

    CodeContextServiceGrpc.CodeContextServiceBlockingStub blocking() {
        return CodeContextServiceGrpc.newBlockingStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS);
    }

    CodeContextServiceGrpc.CodeContextServiceStub async() {
        return CodeContextServiceGrpc.newStub(channel);
    }

    String create() {
        return blocking()
                .createContext(
                        CreateContextRequest.newBuilder().setLanguage("python").build())
                .getContext()
                .getId();
    }

    Run run(String context, String code) {
        return run(context, code, 0);
    }

    Run run(String context, String code, long timeoutMillis) {
        Iterator<ExecuteEvent> it = blocking()
                .execute(ExecuteRequest.newBuilder()
                        .setContextId(context)
                        .setCode(code)
                        .setTimeoutMillis(timeoutMillis)
                        .build());
        List<ExecuteEvent> outputs = new ArrayList<>();
        ExecutionStatus status = null;
        while (it.hasNext()) {
            ExecuteEvent e = it.next();
            if (e.hasStatus()) {
                if (status != null) {
                    throw new AssertionError("two statuses");
                }
                status = e.getStatus();
            } else {
                if (status != null) {
                    throw new AssertionError("an output after the status: " + e);
                }
                outputs.add(e);
            }
        }
        if (status == null) {
            throw new AssertionError("the stream ended without a status");
        }
        return new Run(outputs, status);
    }

    /** An Execute in flight: its events as they come, and the whole run once it ended. */
    static final class Pending implements StreamObserver<ExecuteEvent> {
        final List<ExecuteEvent> events = new CopyOnWriteArrayList<>();
        final CompletableFuture<Run> done = new CompletableFuture<>();
        /** Counted down at the first stream output (the code has begun). */
        final CountDownLatch output = new CountDownLatch(1);

        @Override
        public void onNext(ExecuteEvent e) {
            events.add(e);
            if (e.hasStream()) {
                output.countDown();
            }
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            List<ExecuteEvent> all = List.copyOf(events);
            if (all.isEmpty() || !all.get(all.size() - 1).hasStatus()) {
                done.completeExceptionally(new AssertionError("the stream ended without a status: " + all));
            } else {
                done.complete(new Run(
                        all.subList(0, all.size() - 1), all.get(all.size() - 1).getStatus()));
            }
        }

        /** The run, within {@code seconds}. */
        Run await(long seconds) throws Exception {
            return done.get(seconds, TimeUnit.SECONDS);
        }
    }

    /** Starts an Execute without waiting for it. */
    Pending start(String context, String code) {
        Pending p = new Pending();
        async().execute(
                        ExecuteRequest.newBuilder()
                                .setContextId(context)
                                .setCode(code)
                                .build(),
                        p);
        return p;
    }

    ContextInfo info(String context) {
        return blocking().list(ListRequest.getDefaultInstance()).getContextsList().stream()
                .filter(c -> c.getId().equals(context))
                .findFirst()
                .orElse(null);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        daemon.shutdown();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
