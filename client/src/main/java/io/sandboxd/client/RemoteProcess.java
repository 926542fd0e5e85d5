package io.sandboxd.client;

import com.google.protobuf.ByteString;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A process started with Start: its stream of events, and the calls that act on it (stdin,
 * signals, terminal size) once the daemon has said its id.
 *
 * <p>Events go either to a {@link StartListener} (push), or, without one, to {@link #next()}
 * (pull). Both are flow-controlled end to end: in pull mode the daemon is asked for the next
 * message only when the previous one has been taken, so at most one message waits in memory and
 * a consumer that stops calling {@code next()} stalls the process (its pipe fills), whatever it
 * prints.
 *
 * <p>{@link #close()} cancels the stream if it is still open; the daemon then kills the process
 * group.
 */
public final class RemoteProcess implements AutoCloseable {
    private static final Object END = new Object();

    private final SandboxdClient client;
    private final StartListener listener;
    private final LinkedBlockingQueue<Object> queue;
    private final CompletableFuture<Integer> processId = new CompletableFuture<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    final AtomicReference<Metadata> headers = new AtomicReference<>();
    final AtomicReference<Metadata> trailers = new AtomicReference<>();
    private volatile ClientCallStreamObserver<StartRequest> call;
    private volatile Status status;
    private volatile Integer exitCode;
    private boolean pulledEnd;

    RemoteProcess(SandboxdClient client, StartListener listener) {
        this.client = client;
        this.listener = listener;
        this.queue = listener == null ? new LinkedBlockingQueue<>() : null;
    }

    ClientResponseObserver<StartRequest, StartResponse> observer() {
        return new ClientResponseObserver<>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<StartRequest> requestStream) {
                call = requestStream;
                if (listener == null) {
                    requestStream.disableAutoRequestWithInitial(1);
                }
            }

            @Override
            public void onNext(StartResponse ev) {
                if (ev.hasInit()) {
                    processId.complete(ev.getInit().getProcessId());
                } else if (ev.hasExit()) {
                    exitCode = ev.getExit().getExitCode();
                }
                if (listener == null) {
                    queue.add(ev);
                    return;
                }
                try {
                    listener.onEvent(ev);
                } catch (RuntimeException | Error e) {
                    call.cancel("the StartListener threw " + e, e);
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
        Metadata tr = trailers();
        if (!processId.isDone()) {
            processId.completeExceptionally(client.grpcFailure(
                    "Start", s.isOk() ? Status.INTERNAL.withDescription("stream ended without an init event") : s, tr));
        }
        ended.countDown();
        if (listener == null) {
            queue.add(END);
        } else {
            listener.onEnd(s, tr);
        }
    }

    /**
     * The process id from the init event, waiting for it up to the client's call timeout.
     *
     * @throws GrpcCallException if the stream failed before init (e.g. NOT_FOUND for a missing binary)
     */
    public int pid() {
        OptionalInt id = awaitInit(client.settings.callTimeout());
        if (id.isEmpty()) {
            throw new SandboxdException("Start at " + client.grpcTarget() + ": no init event within "
                    + client.settings.callTimeout().toMillis() + " ms");
        }
        return id.getAsInt();
    }

    /** The process id, or empty if the init event did not come within {@code timeout}. */
    public OptionalInt awaitInit(Duration timeout) {
        try {
            return OptionalInt.of(processId.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return OptionalInt.empty();
        } catch (ExecutionException e) {
            throw (SandboxdException) e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxdException("interrupted while waiting for the init event", e);
        }
    }

    public void writeStdin(byte[] data) {
        client.writeStdin(pid(), data);
    }

    public void writeStdin(ByteString data) {
        client.writeStdin(pid(), data);
    }

    /** Closes the process's stdin (with a TTY: sends ^D). A repeated close is OK. */
    public void closeStdin() {
        client.closeStdin(pid());
    }

    /** Signals the process group. */
    public void signal(Signal signal) {
        client.sendSignal(pid(), signal);
    }

    /** Resizes the terminal (PTY processes only); the program gets SIGWINCH. */
    public void resize(int cols, int rows) {
        client.resizeTty(pid(), cols, rows);
    }

    /** Cancels the stream: the daemon kills the process group. */
    public void cancel() {
        ClientCallStreamObserver<StartRequest> c = call;
        if (c != null && !isEnded()) {
            c.cancel("cancelled by the client", null);
        }
    }

    /**
     * Pull mode: the next event, blocking until it arrives; null once the stream has ended OK (the
     * exit event came before).
     *
     * @throws GrpcCallException if the stream ended with an error (a cancel, a deadline, shutdown)
     * @throws IllegalStateException if events go to a listener
     */
    public StartResponse next() {
        if (listener != null) {
            throw new IllegalStateException("this stream's events go to its StartListener");
        }
        if (!pulledEnd) {
            Object o;
            try {
                o = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxdException("interrupted while waiting for a Start event", e);
            }
            if (o != END) {
                call.request(1);
                return (StartResponse) o;
            }
            pulledEnd = true;
        }
        if (status.isOk()) {
            return null;
        }
        throw client.grpcFailure("Start", status, trailers());
    }

    /** Waits for the stream to end (in pull mode it ends only once {@link #next()} drained it). */
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

    /** The stream's final status, or null while it is open. */
    public Status status() {
        return status;
    }

    /** The exit event's code once it has arrived, else null. */
    public Integer exitCode() {
        return exitCode;
    }

    /** The response headers, once they arrived (empty before). */
    public Metadata headers() {
        Metadata h = headers.get();
        return h == null ? new Metadata() : h;
    }

    /** The trailers once the stream has ended (empty before). */
    public Metadata trailers() {
        Metadata t = trailers.get();
        return t == null ? new Metadata() : t;
    }

    @Override
    public void close() {
        cancel();
    }
}
