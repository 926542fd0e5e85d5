package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.grpc.GrpcServer;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.daemon.rest.RestServer;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
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
        this(config, new Metrics());
    }

    Daemon(DaemonConfig config, Metrics metrics) {
        this.config = config;
        this.services = DaemonServices.create(config, metrics);
    }

    public DaemonServices services() {
        return services;
    }

    /**
     * Starts both listeners at once, REST on a second thread: Netty's and Jetty's start-ups share
     * nothing and take ~60-100 ms of CPU each, so on 2 cores they overlap. Returns when both
     * listen; if either fails, throws after the other finished starting, so that
     * {@link #shutdown()} then closes whatever did start.
     */
    public void start() throws IOException {
        RestServer restServer = new RestServer(services);
        FutureTask<Void> restStart = new FutureTask<>(() -> {
            restServer.start();
            return null;
        });
        Thread restThread = new Thread(restStart, "sandboxd-rest-start");
        restThread.start();
        rest = restServer;
        Throwable failure = null;
        try {
            GrpcServer g = new GrpcServer(services);
            grpc = g;
            g.start();
        } catch (Throwable e) {
            failure = e;
        }
        try {
            awaitUninterruptibly(restStart);
        } catch (ExecutionException e) {
            if (failure == null) {
                failure = e.getCause();
            } else {
                failure.addSuppressed(e.getCause());
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        } else if (failure instanceof RuntimeException re) {
            throw re;
        } else if (failure instanceof Error err) {
            throw err;
        } else if (failure != null) {
            throw new IOException(failure.getMessage(), failure);
        }
    }

    private static void awaitUninterruptibly(FutureTask<Void> task) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    task.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
