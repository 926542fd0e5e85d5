package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.code.CodeContexts;
import io.sandboxd.daemon.code.CodeSettings;
import io.sandboxd.daemon.code.KernelspecCatalog;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.DurableConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.fs.ArchiveLimits;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.DirectoryArchives;
import io.sandboxd.daemon.fs.FileOperations;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.fs.watch.FileWatcher;
import io.sandboxd.daemon.fs.watch.WatchSettings;
import io.sandboxd.daemon.grpc.GrpcServer;
import io.sandboxd.daemon.lifecycle.DaemonState;
import io.sandboxd.daemon.logging.RequestLog;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.daemon.process.CommandResolver;
import io.sandboxd.daemon.process.DurableProcesses;
import io.sandboxd.daemon.process.ProcessCore;
import io.sandboxd.daemon.process.ProcessRegistry;
import io.sandboxd.daemon.process.ProcessRuntime;
import io.sandboxd.daemon.process.journal.JournalStore;
import io.sandboxd.daemon.rest.RestServer;
import io.sandboxd.daemon.security.RunAsUser;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * Builds the core (the process core and the file store over one sandbox root), hands it to the
 * two transports, and owns the lifecycle (runtime-contract §1.8): on shutdown health turns 503 /
 * NOT_SERVING first, then process groups are terminated and their streams get {@code exit},
 * then the listeners close, then the core, all within {@code --shutdown-timeout}.
 */
public final class Daemon {
    /** How long SIGTERM has before SIGKILL at shutdown, when the budget allows that much. */
    private static final long PROCESS_TERM_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The environment variable the access token may come in; children never see it. */
    static final String AUTH_TOKEN_VARIABLE = "SANDBOXD_AUTH_TOKEN";

    private final DaemonConfig config;
    private final DurableConfig durable;
    private final DaemonState state = new DaemonState();
    private final ListenerContext listeners;
    private final ProcessCore processes;
    private final CodeContexts code;
    private final FileStore files;
    private final FileOperations fileOps;
    private final FileWatcher watcher;
    private final DirectoryArchives archives;
    /** File content in both directions: downloads read into these, raw uploads gather in them. */
    private final DirectBuffers fileBuffers = DirectBuffers.forFileContent();

    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile GrpcServer grpc;
    private volatile RestServer rest;

    /**
     * @param metrics    the registry, built ahead (see {@link StartupPreloader})
     * @param requestLog where both listeners write their line per request
     */
    public Daemon(DaemonConfig config, Metrics metrics, RequestLog requestLog) {
        this(config, null, metrics, requestLog);
    }

    /**
     * @param durable the durable-process settings; null for the defaults over a fresh temporary
     *                state directory (daemons built in tests)
     */
    public Daemon(DaemonConfig config, DurableConfig durable, Metrics metrics, RequestLog requestLog) {
        this(config, durable, null, null, null, metrics, requestLog);
    }

    /**
     * @param code          the code-context limits; null for the defaults
     * @param archiveLimits what one archive upload may hold; null for the defaults
     */
    public Daemon(
            DaemonConfig config,
            DurableConfig durable,
            CodeSettings code,
            ArchiveLimits archiveLimits,
            Metrics metrics,
            RequestLog requestLog) {
        this(config, durable, code, archiveLimits, null, metrics, requestLog);
    }

    /** @param watch the filesystem watch's bounds; null for the defaults */
    public Daemon(
            DaemonConfig config,
            DurableConfig durable,
            CodeSettings code,
            ArchiveLimits archiveLimits,
            WatchSettings watch,
            Metrics metrics,
            RequestLog requestLog) {
        this.config = config;
        this.durable = durable != null ? durable : DurableConfig.defaults(temporaryStateDir());
        this.listeners = new ListenerContext(state, AccessToken.from(config.authToken()), requestLog, metrics);
        SandboxRoot root = new SandboxRoot(config.rootDir(), RunAsUser.fileOwner(config.runAs()));
        this.processes = new ProcessCore(
                new CommandResolver(root, childEnvironment(System.getenv())),
                new ProcessRegistry(config.maxProcesses()),
                new ProcessRuntime(config.streamChunkSize(), config.runAs(), metrics.registry()));
        this.files = new FileStore(root, fileBuffers);
        this.code = new CodeContexts(
                processes,
                KernelspecCatalog.standard(System.getenv()),
                this.durable.stateDir(),
                config.runAs(),
                code != null ? code : CodeSettings.defaults(),
                metrics.registry());
        this.fileOps = new FileOperations(root);
        this.watcher = new FileWatcher(root, watch != null ? watch : WatchSettings.defaults());
        this.archives = new DirectoryArchives(root, archiveLimits != null ? archiveLimits : ArchiveLimits.defaults());
        if (!config.runAs().inherits()) {
            giveRootTo(config);
        }
        try {
            processes.enableDurable(
                    new JournalStore(this.durable.stateDir(), this.durable.journalTotalCap()),
                    new DurableProcesses.Settings(
                            this.durable.journalRetention(),
                            this.durable.journalTotalCap(),
                            this.durable.timeoutGrace().toMillis(),
                            this.durable.endedRetention().toMillis(),
                            this.durable.maxEnded()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("state dir " + this.durable.stateDir() + ": " + e.getMessage(), e);
        }
    }

    /** With --run-as-user the processes must be able to create files in the root itself. */
    private static void giveRootTo(DaemonConfig config) {
        try {
            java.nio.file.Files.setAttribute(
                    config.rootDir(), "unix:gid", config.runAs().gid());
            java.nio.file.Files.setAttribute(
                    config.rootDir(), "unix:uid", config.runAs().uid());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot give the root dir to --run-as-user", e);
        }
    }

    private static java.nio.file.Path temporaryStateDir() {
        try {
            return java.nio.file.Files.createTempDirectory("sandboxd-state");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The daemon's environment minus its own secret: user processes never see the access token. */
    static Map<String, String> childEnvironment(Map<String, String> daemonEnv) {
        Map<String, String> env = new HashMap<>(daemonEnv);
        env.remove(AUTH_TOKEN_VARIABLE);
        return env;
    }

    /**
     * Starts both listeners at once, REST on a second thread: Netty's and Jetty's start-ups share
     * nothing and take ~60-100 ms of CPU each, so on 2 cores they overlap. Returns when both
     * listen; if either fails, throws after the other finished starting, so that
     * {@link #shutdown()} then closes whatever did start.
     */
    public void start() throws IOException {
        RestServer restServer =
                new RestServer(config, listeners, files, fileBuffers, System.getenv(), fileOps, archives, watcher);
        FutureTask<Void> restStart = new FutureTask<>(() -> {
            try {
                restServer.start();
            } catch (Exception e) {
                throw new IOException(StartFailure.listener("REST", config.listenHost(), config.restPort(), e), e);
            }
            return null;
        });
        Thread restThread = new Thread(restStart, "sandboxd-rest-start");
        restThread.start();
        rest = restServer;
        Throwable failure = null;
        try {
            GrpcServer g = new GrpcServer(config, listeners, processes, durable.attachHeartbeat(), code);
            grpc = g;
            g.start();
        } catch (Exception e) {
            failure = new IOException(StartFailure.listener("gRPC", config.listenHost(), config.grpcPort(), e), e);
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
        removeStaleUploadsInBackground();
    }

    /** A predecessor killed mid-upload left temp files; they go while the daemon already serves. */
    private void removeStaleUploadsInBackground() {
        Thread cleaner = new Thread(files::removeStaleTemps, "sandboxd-temp-cleaner");
        cleaner.setDaemon(true);
        cleaner.start();
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

    /**
     * Graceful, bounded shutdown (runtime-contract §1.8), in this order and all before the deadline:
     * refuse new calls, report not serving, end every process (each Start stream gets its exit),
     * close the gRPC listener, then the REST one (in-flight requests may finish), then the core.
     * Idempotent; a second caller waits for the first.
     */
    public void shutdown() {
        if (!state.beginShutdown()) {
            awaitTermination();
            return;
        }
        // From here on the gRPC gate refuses new calls and REST health answers 503.
        long deadlineNanos = System.nanoTime() + config.shutdownTimeout().toNanos();
        try {
            GrpcServer g = grpc;
            RestServer r = rest;
            if (g != null) {
                g.reportNotServing();
            }
            // Keep a fifth of the budget (at most 1 s) for closing the listeners; SIGTERM gets
            // half of the rest (at most 2 s) before SIGKILL.
            long budget = Math.max(0, deadlineNanos - System.nanoTime());
            long reserve = Math.min(TimeUnit.SECONDS.toNanos(1), budget / 5);
            long grace = Math.min(PROCESS_TERM_GRACE_NANOS, (budget - reserve) / 2);
            // Code contexts first: their executions end ABORTED (not "kernel died") and their
            // kernels are killed; then every process group, kernels included, as always.
            code.shutdown(System.nanoTime() + grace);
            processes.terminateAll(grace, deadlineNanos - reserve);
            if (g != null) {
                g.stop(deadlineNanos - reserve / 2, deadlineNanos);
            }
            watcher.close(); // every watch stream gets its error event and ends, so REST can stop
            code.close();
            if (r != null) {
                r.stop(deadlineNanos);
            }
            processes.close();
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
}
