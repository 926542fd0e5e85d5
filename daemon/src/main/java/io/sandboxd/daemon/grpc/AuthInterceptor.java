package io.sandboxd.daemon.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.sandboxd.daemon.auth.AccessToken;

/** {@code authorization: Bearer <token>} on every call but health, compared in constant time. */
final class AuthInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private final AccessToken token;

    AuthInterceptor(AccessToken token) {
        this.token = token;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!token.enabled()
                || HealthMethods.isHealth(call.getMethodDescriptor().getFullMethodName())
                || token.permits(headers.get(AUTHORIZATION))) {
            return next.startCall(call, headers);
        }
        call.close(Status.UNAUTHENTICATED.withDescription("missing or invalid bearer token"), new Metadata());
        return new ServerCall.Listener<>() {};
    }
}
