package io.sandboxd.daemon.grpc;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.stub.ServerCallStreamObserver;
import io.sandboxd.api.process.v1.ExitEvent;
import io.sandboxd.api.process.v1.InitEvent;
import io.sandboxd.api.process.v1.StartResponse;
import io.sandboxd.daemon.process.OutputKind;
import io.sandboxd.daemon.process.OutputSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Adapts a Start response stream to the core's {@link OutputSink}. Flow control: a source without
 * demand parks a callback ({@link #onDemand}) that the transport's on-ready handler runs, so a
 * slow client stalls its process instead of growing the heap. Output goes from the lent
 * read buffer straight into the transport's buffer (see {@link #onOutput}).
 */
final class StartStreamSink implements OutputSink {
    private final ServerCallStreamObserver<StartResponse> stream;
    private boolean cancelled;
    private boolean ended;
    /** Demand callbacks of sources waiting (at most one per output pipe: stdout, stderr). */
    private final List<Runnable> pendingDemand = new ArrayList<>(2);

    StartStreamSink(ServerCallStreamObserver<StartResponse> stream) {
        this.stream = stream;
    }

    /** Wire the handlers; must run during the initial service call. */
    void install(Runnable onCancel) {
        stream.setOnReadyHandler(this::wake);
        stream.setOnCancelHandler(() -> {
            synchronized (this) {
                cancelled = true;
            }
            wake();
            onCancel.run();
        });
    }

    synchronized boolean isCancelled() {
        return cancelled;
    }

    private void wake() {
        List<Runnable> ready;
        synchronized (this) {
            if (pendingDemand.isEmpty()) {
                return;
            }
            ready = List.copyOf(pendingDemand);
            pendingDemand.clear();
        }
        ready.forEach(Runnable::run);
    }

    synchronized void init(int processId) {
        if (!cancelled) {
            stream.onNext(StartResponse.newBuilder()
                    .setInit(InitEvent.newBuilder().setProcessId(processId))
                    .build());
        }
    }

    @Override
    public boolean hasDemand() {
        return stream.isReady();
    }

    @Override
    public synchronized boolean isClosed() {
        return cancelled || ended;
    }

    @Override
    public void onDemand(Runnable callback) {
        synchronized (this) {
            // isReady() is read under the lock the on-ready handler takes, so a transition
            // between this check and the registration still finds the callback.
            if (!cancelled && !ended && !stream.isReady()) {
                pendingDemand.add(callback);
                return;
            }
        }
        callback.run();
    }

    /**
     * Wraps the lent array without a copy: {@code onNext} serialises the message into the
     * transport's buffer before it returns (grpc-java's MessageFramer writes the payload in the
     * calling thread), so the source may reuse the array afterwards.
     */
    @Override
    public synchronized void onOutput(OutputKind kind, byte[] data, int length) {
        if (cancelled || ended) {
            return;
        }
        StartResponse.Builder b = StartResponse.newBuilder();
        if (kind == OutputKind.STDOUT) {
            b.setStdout(UnsafeByteOperations.unsafeWrap(data, 0, length));
        } else {
            b.setStderr(UnsafeByteOperations.unsafeWrap(data, 0, length));
        }
        stream.onNext(b.build());
    }

    @Override
    public synchronized void onExit(int exitCode) {
        if (ended) {
            return;
        }
        ended = true;
        pendingDemand.clear();
        if (cancelled) {
            return;
        }
        stream.onNext(StartResponse.newBuilder()
                .setExit(ExitEvent.newBuilder().setExitCode(exitCode))
                .build());
        stream.onCompleted();
    }
}
