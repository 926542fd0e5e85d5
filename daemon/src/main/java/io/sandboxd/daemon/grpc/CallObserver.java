package io.sandboxd.daemon.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sandboxd.daemon.logging.RequestLog;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The outermost interceptor: one log line per RPC (method, status, duration, message bytes in and
 * out; never payloads or metadata values) and the RPC latency timer by method and status.
 */
final class CallObserver implements ServerInterceptor {
    private final RequestLog log;
    private final MeterRegistry registry;
    /** Timers by method, indexed by status code: no meter id built and looked up per call. */
    private final Map<String, AtomicReferenceArray<Timer>> timers = new ConcurrentHashMap<>();

    CallObserver(RequestLog log, MeterRegistry registry) {
        this.log = log;
        this.registry = registry;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        long started = System.nanoTime();
        String method = call.getMethodDescriptor().getFullMethodName();
        String kind = call.getMethodDescriptor().getType().serverSendsOneMessage() ? "unary" : "stream";
        AtomicLong bytesIn = new AtomicLong();
        AtomicLong bytesOut = new AtomicLong();
        AtomicBoolean recorded = new AtomicBoolean();
        ServerCall<Q, R> observed = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
                if (message instanceof MessageLite m) {
                    bytesOut.addAndGet(m.getSerializedSize());
                }
                super.sendMessage(message);
            }

            @Override
            public void close(Status status, Metadata trailers) {
                try {
                    super.close(status, trailers);
                } finally {
                    if (recorded.compareAndSet(false, true)) {
                        record(method, kind, status, started, bytesIn.get(), bytesOut.get());
                    }
                }
            }
        };
        ServerCall.Listener<Q> listener = next.startCall(observed, headers);
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onMessage(Q message) {
                if (message instanceof MessageLite m) {
                    bytesIn.addAndGet(m.getSerializedSize());
                }
                super.onMessage(message);
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    if (recorded.compareAndSet(false, true)) {
                        record(method, kind, Status.CANCELLED, started, bytesIn.get(), bytesOut.get());
                    }
                }
            }
        };
    }

    private void record(String method, String kind, Status status, long started, long in, long out) {
        long nanos = System.nanoTime() - started;
        String code = status.getCode().name();
        log.log("grpc", kind, method, code, nanos, in, out);
        timer(method, status.getCode()).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(String method, Status.Code code) {
        AtomicReferenceArray<Timer> byCode =
                timers.computeIfAbsent(method, m -> new AtomicReferenceArray<>(Status.Code.values().length));
        Timer t = byCode.get(code.ordinal());
        if (t == null) {
            // A race registers the same meter twice: the registry returns the existing one.
            t = Timer.builder("sandboxd.grpc.server.duration")
                    .description("gRPC call latency by method and status")
                    .tag("method", method)
                    .tag("status", code.name())
                    .register(registry);
            byCode.set(code.ordinal(), t);
        }
        return t;
    }
}
