package io.sandboxd.daemon.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Lets a handler add response trailers (Execute's truncation counts): the handler fetches the
 * holder with {@link #current()} during the call and fills it before completing.
 */
final class ResponseTrailers implements ServerInterceptor {
    private static final Context.Key<Metadata> KEY = Context.key("sandboxd-response-trailers");

    static Metadata current() {
        Metadata m = KEY.get();
        return m != null ? m : new Metadata();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        Metadata extra = new Metadata();
        ServerCall<Q, R> wrapped = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                synchronized (extra) {
                    trailers.merge(extra);
                }
                super.close(status, trailers);
            }
        };
        return Contexts.interceptCall(Context.current().withValue(KEY, extra), wrapped, headers, next);
    }
}
