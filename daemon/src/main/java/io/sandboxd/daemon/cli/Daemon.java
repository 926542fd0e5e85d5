package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.grpc.GrpcServer;
import io.sandboxd.daemon.rest.RestServer;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Wires the two transports to the shared core and owns the lifecycle (CONTRACT §1.8): on
 * shutdown health turns 503 / NOT_SERVING first, then process groups are terminated and their
 * streams get {@code exit}, then the listeners close, all within {@code --shutdown-timeout}.
 */
public final class Daemon {
    private final DaemonConfig config;
    private final DaemonServices services;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile GrpcServer grpc;
    private volatile RestServer rest;

    public Daemon(DaemonConfig config) {
        this.config = config;
        this.services = DaemonServices.create(config);
    }

    public DaemonServices services() {
        return services;
    }

    public void start() throws IOException {
        grpc = new GrpcServer(services);
        grpc.start();
        rest = new RestServer(services);
        rest.start();
    }

    public int grpcPort() {
        return grpc.port();
    }

    public int restPort() {
        return rest.port();
    }

    /** Graceful, bounded shutdown. Idempotent; a second caller waits for the first. */
    public void shutdown() {
        if (!services.state().beginShutdown()) {
            awaitTermination();
            return;
        }
        long deadlineNanos = System.nanoTime() + config.shutdownTimeout().toNanos();
        try {
            if (grpc != null) {
                grpc.shutdown(deadlineNanos);
            }
            if (rest != null) {
                rest.stop(deadlineNanos);
            }
        } finally {
            terminated.countDown();
        }
    }

    public void awaitTermination() {
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }
}
