package io.sandboxd.daemon.grpc;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.ResizeTTYRequest;
import io.sandboxd.api.process.v1.ResizeTTYResponse;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.api.process.v1.WriteStdinRequest;
import io.sandboxd.api.process.v1.WriteStdinResponse;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.process.ExecuteResult;
import io.sandboxd.daemon.process.Execution;
import io.sandboxd.daemon.process.ManagedProcess;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.ProcessSignal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/** The thin gRPC adapter of {@code process.v1.ProcessService} over the {@link ProcessCore}. */
final class ProcessServiceImpl extends ProcessServiceGrpc.ProcessServiceImplBase {
    static final Metadata.Key<String> STDOUT_TRUNCATED =
            Metadata.Key.of("sandboxd-stdout-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> STDERR_TRUNCATED =
            Metadata.Key.of("sandboxd-stderr-truncated-bytes", Metadata.ASCII_STRING_MARSHALLER);

    private final ProcessCore core;
    private final int executeOutputLimit;
    private final Executor ptySpawns;

    /**
     * Calls run on the transport's event loops, without a hop to an executor: a pipe-mode spawn
     * returns as soon as the child exec'd (posix_spawn, well under a millisecond) and nothing
     * else here blocks. PTY spawns (pty4j forks the JVM, then waits for the exec) go to
     * {@code ptySpawns}.
     */
    ProcessServiceImpl(ProcessCore core, int executeOutputLimit, Executor ptySpawns) {
        this.core = core;
        this.executeOutputLimit = executeOutputLimit;
        this.ptySpawns = ptySpawns;
    }

    @Override
    public void start(StartRequest request, StreamObserver<StartResponse> observer) {
        ServerCallStreamObserver<StartResponse> stream = (ServerCallStreamObserver<StartResponse>) observer;
        StartStreamSink sink = new StartStreamSink(stream);
        AtomicReference<ManagedProcess> started = new AtomicReference<>();
        sink.install(() -> {
            ManagedProcess p = started.get();
            if (p != null) {
                p.killTree();
            }
        });
        if (request.hasPty()) {
            // pty4j forks the JVM and waits for the exec: too slow for a transport thread.
            ptySpawns.execute(Context.current().wrap(() -> spawn(request, stream, sink, started)));
        } else {
            spawn(request, stream, sink, started);
        }
    }

    private void spawn(
            StartRequest request,
            ServerCallStreamObserver<StartResponse> stream,
            StartStreamSink sink,
            AtomicReference<ManagedProcess> started) {
        ManagedProcess p;
        try {
            p = core.start(ProcessRequests.of(request));
        } catch (SandboxException | RuntimeException e) {
            stream.onError(StatusMapper.toStatus(e));
            return;
        }
        started.set(p);
        sink.init(p.id());
        p.pump(sink);
        if (sink.isCancelled()) {
            p.killTree(); // the client left before we could register the handler's target
        }
    }

    @Override
    public void execute(ExecuteRequest request, StreamObserver<ExecuteResponse> observer) {
        Metadata trailers = ResponseTrailers.current();
        Context ctx = Context.current();
        Execution execution;
        try {
            execution = core.execute(ProcessRequests.of(request.getConfig(), null), executeOutputLimit);
        } catch (SandboxException | RuntimeException e) {
            observer.onError(StatusMapper.toStatus(e));
            return;
        }
        Context.CancellationListener onCancel = c -> execution.cancel();
        ctx.addListener(onCancel, Runnable::run);
        execution.result().whenComplete((r, err) -> {
            ctx.removeListener(onCancel);
            if (ctx.isCancelled()) {
                return; // the client already has DEADLINE_EXCEEDED / CANCELLED
            }
            if (err != null) {
                observer.onError(StatusMapper.toStatus(err));
                return;
            }
            respond(r, trailers, observer);
        });
    }

    private static void respond(ExecuteResult r, Metadata trailers, StreamObserver<ExecuteResponse> observer) {
        synchronized (trailers) {
            if (r.stdoutDropped() > 0) {
                trailers.put(STDOUT_TRUNCATED, Long.toString(r.stdoutDropped()));
            }
            if (r.stderrDropped() > 0) {
                trailers.put(STDERR_TRUNCATED, Long.toString(r.stderrDropped()));
            }
        }
        observer.onNext(ExecuteResponse.newBuilder()
                .setExitCode(r.exitCode())
                .setStdout(UnsafeByteOperations.unsafeWrap(r.stdout()))
                .setStderr(UnsafeByteOperations.unsafeWrap(r.stderr()))
                .build());
        observer.onCompleted();
    }

    @Override
    public void writeStdin(WriteStdinRequest request, StreamObserver<WriteStdinResponse> observer) {
        ManagedProcess p;
        try {
            p = core.find(request.getProcessId());
        } catch (SandboxException e) {
            observer.onError(StatusMapper.toStatus(e));
            return;
        }
        CompletableFuture<Void> op =
                switch (request.getPayloadCase()) {
                    case INPUT -> p.writeStdin(request.getInput().toByteArray());
                    case EOF -> p.closeStdin();
                    case PAYLOAD_NOT_SET -> CompletableFuture.completedFuture(null);
                };
        Context ctx = Context.current();
        // Deadline or cancel: give up; a write that has not begun is skipped (see StdinChannel).
        Context.CancellationListener onCancel = c -> op.cancel(false);
        ctx.addListener(onCancel, Runnable::run);
        op.whenComplete((v, err) -> {
            ctx.removeListener(onCancel);
            if (ctx.isCancelled()) {
                return;
            }
            if (err != null) {
                observer.onError(StatusMapper.toStatus(err));
            } else {
                observer.onNext(WriteStdinResponse.getDefaultInstance());
                observer.onCompleted();
            }
        });
    }

    @Override
    public void sendSignal(SendSignalRequest request, StreamObserver<SendSignalResponse> observer) {
        try {
            ManagedProcess p = core.find(request.getProcessId());
            p.signal(ProcessSignal.of(request.getSignalValue(), wireName(request)));
            observer.onNext(SendSignalResponse.getDefaultInstance());
            observer.onCompleted();
        } catch (SandboxException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }

    /** The request's signal as the client named it: its enum name, or the bare number when unknown. */
    private static String wireName(SendSignalRequest request) {
        Signal signal = request.getSignal();
        return signal == Signal.UNRECOGNIZED ? Integer.toString(request.getSignalValue()) : signal.name();
    }

    @Override
    public void resizeTTY(ResizeTTYRequest request, StreamObserver<ResizeTTYResponse> observer) {
        try {
            ManagedProcess p = core.find(request.getProcessId());
            p.resize(Integer.toUnsignedLong(request.getCols()), Integer.toUnsignedLong(request.getRows()));
            observer.onNext(ResizeTTYResponse.getDefaultInstance());
            observer.onCompleted();
        } catch (SandboxException e) {
            observer.onError(StatusMapper.toStatus(e));
        }
    }
}
