package io.sandboxd.daemon.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.sandboxd.daemon.lifecycle.DaemonState;

/** Once shutdown began, new calls get UNAVAILABLE (health still answers, NOT_SERVING). */
final class ServingGate implements ServerInterceptor {
    private final DaemonState state;

    ServingGate(DaemonState state) {
        this.state = state;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (state.isServing()
                || HealthMethods.isHealth(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        call.close(Status.UNAVAILABLE.withDescription("sandboxd is shutting down"), new Metadata());
        return new ServerCall.Listener<>() {};
    }
}
