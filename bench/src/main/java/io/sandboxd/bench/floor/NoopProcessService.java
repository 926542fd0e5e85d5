package io.sandboxd.bench.floor;

import io.grpc.stub.StreamObserver;
import io.sandboxd.api.process.v1.ExecuteRequest;
import io.sandboxd.api.process.v1.ExecuteResponse;
import io.sandboxd.api.process.v1.InitEvent;
import io.sandboxd.api.process.v1.ProcessServiceGrpc;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.SendSignalResponse;
import io.sandboxd.api.process.v1.StartRequest;
import io.sandboxd.api.process.v1.StartResponse;

/**
 * The daemon's gRPC API (its generated stubs and descriptors, so protobuf's share of the floor is
 * the daemon's own) with no work behind it: Execute answers exit code 0 at once, Start sends an
 * init event and then stays open until the client goes away (the live-streams figure), SendSignal
 * answers OK. Nothing is spawned.
 */
final class NoopProcessService extends ProcessServiceGrpc.ProcessServiceImplBase {
    @Override
    public void execute(ExecuteRequest request, StreamObserver<ExecuteResponse> out) {
        out.onNext(ExecuteResponse.getDefaultInstance());
        out.onCompleted();
    }

    @Override
    public void start(StartRequest request, StreamObserver<StartResponse> out) {
        out.onNext(StartResponse.newBuilder()
                .setInit(InitEvent.newBuilder().setProcessId(1))
                .build());
        // never completed: the call ends when the client cancels it
    }

    @Override
    public void sendSignal(SendSignalRequest request, StreamObserver<SendSignalResponse> out) {
        out.onNext(SendSignalResponse.getDefaultInstance());
        out.onCompleted();
    }
}
