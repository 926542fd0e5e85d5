package io.sandboxd.daemon.grpc;

import io.sandboxd.daemon.cli.DaemonServices;

import java.io.IOException;

/** The gRPC ProcessService on --grpc-port (CONTRACT §1). Placeholder until the gRPC transport lands. */
public final class GrpcServer {
    private final DaemonServices services;

    public GrpcServer(DaemonServices services) {
        this.services = services;
    }

    public void start() throws IOException {
        // placeholder: binds nothing until the gRPC transport lands
    }

    public int port() {
        return -1;
    }

    /** Stops new RPCs, ends every process group and stream, closes the listener, by the deadline. */
    public void shutdown(long deadlineNanos) {
    }
}
