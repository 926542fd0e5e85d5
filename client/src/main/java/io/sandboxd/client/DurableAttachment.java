package io.sandboxd.client;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sandboxd.api.durable.v1alpha1.AttachEvent;
import io.sandboxd.api.durable.v1alpha1.ExitRecord;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One durable Start or Attach stream: its events go to a {@link DurableListener} (push) or, without
 * one, to {@link #next()} (pull). Flow-controlled like {@link RemoteProcess}: in pull mode at most
 * one event waits in memory; an attacher that stops reading falls behind in the daemon's journal
 * and never stalls the process.
 *
 * <p>{@link #close()} / {@link #detach()} cancel the stream: an attached viewer goes away, the
 * process keeps running (unless it was started without detach by this very stream).
 */
public final class DurableAttachment implements AutoCloseable {
    private static final Object END = new Object();

    private final SandboxdClient client;
    private final String method;
    private final DurableListener listener;
    private final LinkedBlockingQueue<Object> queue;
    private final CountDownLatch ended = new CountDownLatch(1);
    final AtomicReference<Metadata> headers = new AtomicReference<>();
    final AtomicReference<Metadata> trailers = new AtomicReference<>();
    private volatile ClientCallStreamObserver<?> call;
    private volatile Status status;
    private volatile ExitRecord exit;
    private boolean pulledEnd;

    DurableAttachment(SandboxdClient client, String method, DurableListener listener) {
        this.client = client;
        this.method = method;
        this.listener = listener;
        this.queue = listener == null ? new LinkedBlockingQueue<>() : null;
    }

    <Q> ClientResponseObserver<Q, AttachEvent> observer() {
        return new ClientResponseObserver<>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<Q> requestStream) {
                call = requestStream;
                if (listener == null) {
                    requestStream.disableAutoRequestWithInitial(1);
                }
            }

            @Override
            public void onNext(AttachEvent ev) {
                if (ev.hasExit()) {
                    exit = ev.getExit();
                }
                if (listener == null) {
                    queue.add(ev);
                    return;
                }
                try {
                    listener.onEvent(ev);
                } catch (RuntimeException | Error e) {
                    call.cancel("the DurableListener threw " + e, e);
                }
            }

            @Override
            public void onError(Throwable t) {
                Metadata tr = Status.trailersFromThrowable(t);
                if (tr != null) {
                    trailers.set(tr);
                }
                end(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                end(Status.OK);
            }
        };
    }

    private void end(Status s) {
        status = s;
        ended.countDown();
        if (listener == null) {
            queue.add(END);
        } else {
            listener.onEnd(s, trailers());
        }
    }

    /**
     * Pull mode: the next event, blocking until it arrives; null once the stream ended OK.
     *
     * @throws GrpcCallException if the stream failed (NOT_FOUND, OUT_OF_RANGE, a cancel, shutdown)
     * @throws IllegalStateException if events go to a listener
     */
    public AttachEvent next() {
        if (listener != null) {
            throw new IllegalStateException("this stream's events go to its DurableListener");
        }
        if (!pulledEnd) {
            Object o;
            try {
                o = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxdException("interrupted while waiting for a " + method + " event", e);
            }
            if (o != END) {
                call.request(1);
                return (AttachEvent) o;
            }
            pulledEnd = true;
        }
        if (status.isOk()) {
            return null;
        }
        throw client.grpcFailure(method, status, trailers());
    }

    /** Cancels the stream: this viewer goes away; a detached process keeps running. */
    public void detach() {
        ClientCallStreamObserver<?> c = call;
        if (c != null && !isEnded()) {
            c.cancel("detached by the client", null);
        }
    }

    public boolean awaitEnd(Duration timeout) {
        try {
            return ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public boolean isEnded() {
        return ended.getCount() == 0;
    }

    /** The final status, or null while open. */
    public Status status() {
        return status;
    }

    /** The exit record once it has arrived, else null. */
    public ExitRecord exit() {
        return exit;
    }

    public Metadata headers() {
        Metadata h = headers.get();
        return h == null ? new Metadata() : h;
    }

    public Metadata trailers() {
        Metadata t = trailers.get();
        return t == null ? new Metadata() : t;
    }

    @Override
    public void close() {
        detach();
    }
}
