package io.sandboxd.daemon.grpc;

import io.grpc.Attributes;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import java.util.ArrayDeque;

/**
 * Bounds the memory a connection's incoming request messages take while they arrive. grpc-java
 * reads a message whole (up to the 4 MiB limit, in direct buffers) as soon as the handler asks
 * for it, and every unary handler asks at once: 60 concurrent 4 MiB WriteStdin calls on one
 * connection held 240 MiB and, at -Xmx64m, ran out of direct memory, which tore the connection
 * down (GOAWAY INTERNAL_ERROR, "Cannot reserve 131072 bytes of direct buffer memory").
 *
 * <p>Here a call's request for messages is passed on only while the connection has one of
 * {@link #SLOTS_PER_CONNECTION} slots for it; the slot is given back when the message has
 * arrived (or the call ends), and the next waiting call of that connection gets it, in order.
 * A waiting call's bytes stay in HTTP/2 flow control: at most the stream window
 * ({@link GrpcServer#STREAM_WINDOW_BYTES}) each, and grpc-java refills the connection window
 * on receipt, so waiting streams never block the ones that hold a slot. One connection then
 * holds at most 4 x 4 MiB being assembled plus 64 KiB per waiting call. Slots are per
 * connection: a client that opens calls and never sends their message delays only itself.
 * Runs after auth, so an unauthenticated call never takes one.
 */
final class InboundMessageGate implements ServerInterceptor {
    static final int SLOTS_PER_CONNECTION = 4;
    private static final Attributes.Key<Slots> SLOTS = Attributes.Key.create("sandboxd.inbound-message-slots");

    /** Gives every new connection its own slots. */
    static ServerTransportFilter perConnection() {
        return new ServerTransportFilter() {
            @Override
            public Attributes transportReady(Attributes attrs) {
                return attrs.toBuilder()
                        .set(SLOTS, new Slots(SLOTS_PER_CONNECTION))
                        .build();
            }
        };
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        Slots slots = call.getAttributes().get(SLOTS);
        if (slots == null) {
            return next.startCall(call, headers);
        }
        GatedCall<Q, R> gated = new GatedCall<>(call, slots);
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(gated, headers)) {
            @Override
            public void onMessage(Q message) {
                slots.release(gated);
                super.onMessage(message);
            }

            @Override
            public void onHalfClose() {
                slots.release(gated);
                super.onHalfClose();
            }

            @Override
            public void onCancel() {
                slots.release(gated);
                super.onCancel();
            }

            @Override
            public void onComplete() {
                slots.release(gated);
                super.onComplete();
            }
        };
    }

    /** A call whose requests for messages wait for a slot of its connection. */
    static final class GatedCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        private final Slots slots;
        /** Guarded by the slots' lock. */
        boolean holding;

        int pendingRequests;

        GatedCall(ServerCall<Q, R> call, Slots slots) {
            super(call);
            this.slots = slots;
        }

        @Override
        public void request(int numMessages) {
            slots.acquire(this, numMessages);
        }

        void grant(int numMessages) {
            super.request(numMessages);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            slots.release(this);
            super.close(status, trailers);
        }
    }

    /** The slots of one connection, handed out first come, first served. */
    static final class Slots {
        private int free;
        private final ArrayDeque<GatedCall<?, ?>> waiting = new ArrayDeque<>();

        Slots(int count) {
            this.free = count;
        }

        void acquire(GatedCall<?, ?> call, int numMessages) {
            synchronized (this) {
                if (!call.holding) {
                    if (free == 0) {
                        if (call.pendingRequests == 0) {
                            waiting.add(call);
                        }
                        call.pendingRequests += numMessages;
                        return;
                    }
                    free--;
                    call.holding = true;
                }
            }
            call.grant(numMessages);
        }

        /** The call's message arrived or the call ended: its slot goes to the next waiting call. */
        void release(GatedCall<?, ?> call) {
            GatedCall<?, ?> next;
            int requests;
            synchronized (this) {
                if (!call.holding) {
                    if (call.pendingRequests > 0) {
                        waiting.remove(call);
                        call.pendingRequests = 0;
                    }
                    return;
                }
                call.holding = false;
                next = waiting.poll();
                if (next == null) {
                    free++;
                    return;
                }
                next.holding = true;
                requests = next.pendingRequests;
                next.pendingRequests = 0;
            }
            next.grant(requests);
        }
    }
}
