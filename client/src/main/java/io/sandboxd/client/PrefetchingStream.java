package io.sandboxd.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A server-streaming call that one thread reads message by message, with up to {@link #WINDOW}
 * messages asked for ahead of the reader. grpc-java's blocking iterator asks for the next message
 * only after the reader took the previous one, and that request travels to the channel's event
 * loop before the message already received is handed over: a round trip of two thread wake-ups
 * for every message after the first (an Execute answers with at least two: its output and its
 * status). Here the messages are handed over as they arrive; the reader's requests for more run
 * ahead of it. Memory: at most {@code WINDOW} messages (each within the channel's inbound limit)
 * wait for the reader. Not thread-safe: one reader.
 */
final class PrefetchingStream<Q, R> {
    static final int WINDOW = 4;

    private record Closed(Status status, Metadata trailers) {}

    private final ClientCall<Q, R> call;
    private final BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
    private Closed closed;

    /** Starts the call on the current gRPC context (cancelling it cancels the call). */
    PrefetchingStream(Channel channel, MethodDescriptor<Q, R> method, CallOptions options, Q request) {
        // The listener only queues, so it runs on the transport thread itself (no executor hop).
        call = channel.newCall(method, options.withExecutor(Runnable::run));
        call.start(
                new ClientCall.Listener<>() {
                    @Override
                    public void onMessage(R message) {
                        arrived.add(message);
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        arrived.add(new Closed(status, trailers));
                    }
                },
                new Metadata());
        try {
            call.request(WINDOW);
            call.sendMessage(request);
            call.halfClose();
        } catch (RuntimeException | Error e) {
            call.cancel("the request could not be sent", e);
            throw e;
        }
    }

    /**
     * The next message, blocking; null once the call ended with OK.
     *
     * @throws StatusRuntimeException the status the call ended with (CANCELLED if this thread was
     *     interrupted while waiting: the call is cancelled and the interrupt kept)
     */
    R next() {
        if (closed == null) {
            Object o = take();
            if (!(o instanceof Closed c)) {
                call.request(1);
                @SuppressWarnings("unchecked")
                R message = (R) o;
                return message;
            }
            closed = c;
        }
        if (closed.status().isOk()) {
            return null;
        }
        throw closed.status().asRuntimeException(closed.trailers());
    }

    /** Whether the reader has seen the call's end (next() returned null or threw its status). */
    boolean ended() {
        return closed != null;
    }

    /** Waits for what arrives next; on interrupt, cancels and still waits for the close. */
    private Object take() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return arrived.take();
                } catch (InterruptedException e) {
                    interrupted = true;
                    call.cancel("the reading thread was interrupted", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
