package io.sandboxd.conformance.fake;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.AttachRequest;
import io.sandboxd.api.durable.v1alpha1.DurableProcessServiceGrpc;
import io.sandboxd.api.durable.v1alpha1.ExitKind;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import io.sandboxd.api.durable.v1alpha1.ListRequest;
import io.sandboxd.api.durable.v1alpha1.ListResponse;
import io.sandboxd.api.durable.v1alpha1.ProcessInfo;
import io.sandboxd.api.durable.v1alpha1.ProcessRef;
import io.sandboxd.api.durable.v1alpha1.StartRequest;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.ResizeTTYResponse;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A gRPC proxy in front of a real runtime that breaks one rule of runtime-contract §4.1 on
 * purpose (or none): process.v1 and the durable service are forwarded call by call, and the
 * {@link DurableBreakage} in force changes what goes through. The durable checks are run through
 * it to show that each fails, for the reason it names, when its rule is broken.
 */
public final class DurableProxy implements AutoCloseable {
    private final ManagedChannel upstream;
    private final Server server;
    private volatile DurableBreakage breakage;
    /** Ids handed out by the durable service's Start (for IDS_SEPARATE). */
    private final Set<Integer> durableIds = ConcurrentHashMap.newKeySet();
    /** Attach streams to the client that have not ended (for STALL_COUPLED). */
    private final Set<ServerCallStreamObserver<AttachEvent>> attaching = ConcurrentHashMap.newKeySet();

    public DurableProxy(String upstreamTarget) throws IOException {
        this.upstream = NettyChannelBuilder.forTarget(upstreamTarget)
                .usePlaintext()
                .maxInboundMessageSize(16 << 20)
                .build();
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new V1())
                .addService(new Durable())
                .build()
                .start();
    }

    /** What the proxy breaks from now on (null: nothing). */
    public void breakage(DurableBreakage b) {
        this.breakage = b;
    }

    public String target() {
        return "127.0.0.1:" + server.getPort();
    }

    private boolean is(DurableBreakage b) {
        return breakage == b;
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow();
        upstream.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
        upstream.awaitTermination(5, TimeUnit.SECONDS);
    }

    private <T> void unary(StreamObserver<T> out, java.util.function.Supplier<T> call) {
        try {
            out.onNext(call.get());
            out.onCompleted();
        } catch (StatusRuntimeException e) {
            out.onError(broken(e));
        }
    }

    /** process.v1, forwarded; IDS_SEPARATE and PTY_RESIZE_LOST act here. */
    private final class V1 extends ProcessServiceGrpc.ProcessServiceImplBase {
        private ProcessServiceGrpc.ProcessServiceBlockingStub stub() {
            return ProcessServiceGrpc.newBlockingStub(upstream).withDeadlineAfter(60, TimeUnit.SECONDS);
        }

        private void refuseDurable(int id) {
            if (is(DurableBreakage.IDS_SEPARATE) && durableIds.contains(id)) {
                throw Status.NOT_FOUND
                        .withDescription("process " + id + " not found")
                        .asRuntimeException();
            }
        }

        @Override
        public void execute(ExecuteRequest r, StreamObserver<ExecuteResponse> out) {
            unary(out, () -> stub().execute(r));
        }

        @Override
        public void writeStdin(WriteStdinRequest r, StreamObserver<WriteStdinResponse> out) {
            unary(out, () -> {
                refuseDurable(r.getProcessId());
                return stub().writeStdin(r);
            });
        }

        @Override
        public void sendSignal(SendSignalRequest r, StreamObserver<SendSignalResponse> out) {
            unary(out, () -> {
                refuseDurable(r.getProcessId());
                return stub().sendSignal(r);
            });
        }

        @Override
        public void resizeTTY(ResizeTTYRequest r, StreamObserver<ResizeTTYResponse> out) {
            unary(out, () -> {
                refuseDurable(r.getProcessId());
                return is(DurableBreakage.PTY_RESIZE_LOST)
                        ? ResizeTTYResponse.getDefaultInstance()
                        : stub().resizeTTY(r);
            });
        }

        @Override
        public void start(io.sandboxd.api.process.v1.StartRequest r, StreamObserver<StartResponse> out) {
            forward(
                    (ServerCallStreamObserver<StartResponse>) out,
                    o -> ProcessServiceGrpc.newStub(upstream).start(r, o),
                    UnaryOperator.identity(),
                    false,
                    () -> {});
        }
    }

    /** The durable service, forwarded with the breakage's changes. */
    private final class Durable extends DurableProcessServiceGrpc.DurableProcessServiceImplBase {
        private DurableProcessServiceGrpc.DurableProcessServiceBlockingStub stub() {
            return DurableProcessServiceGrpc.newBlockingStub(upstream).withDeadlineAfter(60, TimeUnit.SECONDS);
        }

        @Override
        public void start(StartRequest r, StreamObserver<AttachEvent> out) {
            ServerCallStreamObserver<AttachEvent> down = (ServerCallStreamObserver<AttachEvent>) out;
            StartRequest sent = is(DurableBreakage.NO_KILL_ON_CANCEL)
                    ? r.toBuilder().setDetach(true).build()
                    : r;
            if (is(DurableBreakage.TAG_NOT_UNIQUE) && !r.getTag().isEmpty()) {
                try {
                    ProcessInfo live = stub().get(
                                    ProcessRef.newBuilder().setTag(r.getTag()).build());
                    if (!live.hasExit()) {
                        sent = sent.toBuilder().clearTag().build(); // a live tag: start it anyway
                    }
                } catch (StatusRuntimeException e) {
                    // not in use
                }
            }
            int[] id = {0};
            // (outside the cancelled call's context, which would cancel the SendSignal too)
            Runnable onCancel = () -> {
                if (is(DurableBreakage.DETACH_IGNORED) && r.getDetach() && id[0] > 0) {
                    io.grpc.Context.ROOT.run(() -> ProcessServiceGrpc.newBlockingStub(upstream)
                            .sendSignal(SendSignalRequest.newBuilder()
                                    .setProcessId(id[0])
                                    .setSignal(Signal.SIGNAL_SIGKILL)
                                    .build()));
                }
            };
            StartRequest req = sent;
            forward(
                    down,
                    o -> DurableProcessServiceGrpc.newStub(upstream).start(req, o),
                    e -> {
                        if (e.hasStarted()) {
                            id[0] = e.getStarted().getProcessId();
                            durableIds.add(id[0]);
                            if (is(DurableBreakage.STARTED_MISSING)) {
                                return null;
                            }
                        }
                        return event(e);
                    },
                    true,
                    onCancel);
        }

        @Override
        public void attach(AttachRequest r, StreamObserver<AttachEvent> out) {
            ServerCallStreamObserver<AttachEvent> down = (ServerCallStreamObserver<AttachEvent>) out;
            if (is(DurableBreakage.V1_NOT_LISTED)) {
                try {
                    if (stub().get(r.getProcess()).getV1Start()) {
                        out.onError(
                                Status.NOT_FOUND.withDescription("not found").asRuntimeException());
                        return;
                    }
                } catch (StatusRuntimeException e) {
                    out.onError(e);
                    return;
                }
            }
            AttachRequest sent = is(DurableBreakage.OFFSET_IGNORED)
                    ? r.toBuilder().setStdoutOffset(0).setStderrOffset(0).build()
                    : r;
            forward(
                    down,
                    o -> DurableProcessServiceGrpc.newStub(upstream).attach(sent, o),
                    this::event,
                    true,
                    () -> {});
        }

        /** An event as the breakage has it; null drops it. */
        private AttachEvent event(AttachEvent e) {
            DurableBreakage b = breakage;
            if (b == null) {
                return e;
            }
            switch (b) {
                case OFFSETS_SHIFTED -> {
                    if (e.hasOutput() && e.getOutput().getOffset() > 0) {
                        return e.toBuilder()
                                .setOutput(e.getOutput().toBuilder()
                                        .setOffset(e.getOutput().getOffset() + 1))
                                .build();
                    }
                }
                case GAP_DROPPED -> {
                    if (e.hasGap()) {
                        return null;
                    }
                }
                case NO_HEARTBEAT -> {
                    if (e.hasHeartbeat()) {
                        return null;
                    }
                }
                case SIGNAL_AS_EXITED, TIMEOUT_NOT_REPORTED -> {
                    if (e.hasExit()) {
                        return e.toBuilder().setExit(exit(e.getExit())).build();
                    }
                }
                default -> {}
            }
            return e;
        }

        private ExitRecord exit(ExitRecord x) {
            if (is(DurableBreakage.SIGNAL_AS_EXITED) && x.getKind() == ExitKind.EXIT_KIND_SIGNALED) {
                return x.toBuilder()
                        .setKind(ExitKind.EXIT_KIND_EXITED)
                        .setSignal(0)
                        .build();
            }
            if (is(DurableBreakage.TIMEOUT_NOT_REPORTED) && x.getTimedOut()) {
                return x.toBuilder()
                        .setKind(ExitKind.EXIT_KIND_SIGNALED)
                        .setTimedOut(false)
                        .build();
            }
            return x;
        }

        @Override
        public void list(ListRequest r, StreamObserver<ListResponse> out) {
            unary(out, () -> {
                ListResponse l = stub().list(r);
                ListResponse.Builder b = ListResponse.newBuilder();
                for (ProcessInfo p : l.getProcessesList()) {
                    if (is(DurableBreakage.V1_NOT_LISTED) && p.getV1Start()) {
                        continue;
                    }
                    b.addProcesses(info(p));
                }
                return b.build();
            });
        }

        @Override
        public void get(ProcessRef r, StreamObserver<ProcessInfo> out) {
            unary(out, () -> {
                ProcessInfo p = stub().get(r);
                if (is(DurableBreakage.V1_NOT_LISTED) && p.getV1Start()) {
                    throw Status.NOT_FOUND.withDescription("not found").asRuntimeException();
                }
                return info(p);
            });
        }

        private ProcessInfo info(ProcessInfo p) {
            ProcessInfo.Builder b = p.toBuilder();
            if (is(DurableBreakage.LIST_WITHOUT_TAG)) {
                b.clearTag();
            }
            if (is(DurableBreakage.NO_TREE)) {
                b.clearTree();
            }
            if (p.hasExit()) {
                b.setExit(exit(p.getExit()));
            }
            return b.build();
        }

        @Override
        public void wait(ProcessRef r, StreamObserver<ExitRecord> out) {
            unary(out, () -> {
                return exit(DurableProcessServiceGrpc.newBlockingStub(upstream)
                        .withDeadlineAfter(120, TimeUnit.SECONDS)
                        .wait(r));
            });
        }
    }

    /** An error as the breakage has it. */
    private StatusRuntimeException broken(StatusRuntimeException e) {
        if (is(DurableBreakage.NOT_FOUND_AS_INTERNAL) && e.getStatus().getCode() == Status.Code.NOT_FOUND) {
            return Status.INTERNAL
                    .withDescription(e.getStatus().getDescription())
                    .asRuntimeException();
        }
        if (is(DurableBreakage.OUT_OF_RANGE_AS_INVALID) && e.getStatus().getCode() == Status.Code.OUT_OF_RANGE) {
            return Status.INVALID_ARGUMENT
                    .withDescription(e.getStatus().getDescription())
                    .asRuntimeException();
        }
        return e;
    }

    /**
     * Forwards a server stream with flow control both ways: one message is asked upstream at a
     * time, when the client can take it. With STALL_COUPLED a durable stream also waits while
     * any other durable stream's client cannot take more (one stalled attacher stalls them all).
     */
    private <Q, R> void forward(
            ServerCallStreamObserver<R> down,
            java.util.function.Consumer<ClientResponseObserver<Q, R>> call,
            UnaryOperator<R> map,
            boolean durable,
            Runnable onCancel) {
        @SuppressWarnings("unchecked")
        ServerCallStreamObserver<AttachEvent> self = (ServerCallStreamObserver<AttachEvent>) down;
        if (durable) {
            attaching.add(self);
        }
        ClientCallStreamObserver<?>[] upCall = new ClientCallStreamObserver<?>[1];
        boolean[] wanting = {false};
        Runnable[] pull = new Runnable[1];
        pull[0] = () -> {
            synchronized (wanting) {
                if (!wanting[0] || upCall[0] == null || down.isCancelled() || !down.isReady()) {
                    return; // our own readiness pulls again
                }
                if (durable
                        && is(DurableBreakage.STALL_COUPLED)
                        && attaching.stream().anyMatch(o -> o != self && !o.isCancelled() && !o.isReady())) {
                    java.util.concurrent.CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)
                            .execute(pull[0]);
                    return;
                }
                wanting[0] = false;
                upCall[0].request(1);
            }
        };
        down.setOnReadyHandler(pull[0]);
        down.setOnCancelHandler(() -> {
            attaching.remove(self);
            onCancel.run();
            if (upCall[0] != null) {
                upCall[0].cancel("client cancelled", null);
            }
        });
        call.accept(new ClientResponseObserver<Q, R>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<Q> r) {
                upCall[0] = r;
                r.disableAutoRequestWithInitial(0);
                synchronized (wanting) {
                    wanting[0] = true;
                }
            }

            @Override
            public void onNext(R value) {
                R v = map.apply(value);
                if (v != null && !down.isCancelled()) {
                    down.onNext(v);
                }
                synchronized (wanting) {
                    wanting[0] = true;
                }
                pull[0].run();
            }

            @Override
            public void onError(Throwable t) {
                attaching.remove(self);
                if (!down.isCancelled()) {
                    down.onError(t instanceof StatusRuntimeException e ? broken(e) : t);
                }
            }

            @Override
            public void onCompleted() {
                attaching.remove(self);
                if (!down.isCancelled()) {
                    down.onCompleted();
                }
            }
        });
        pull[0].run();
    }
}
