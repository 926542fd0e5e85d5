package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.fs.ArchiveLimits;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.DirectoryArchives;
import io.sandboxd.daemon.fs.FileOperations;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.lifecycle.DaemonState;
import io.sandboxd.daemon.metrics.Metrics;
import io.sandboxd.testkit.raw.RawHttp;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A real RestServer on an ephemeral loopback port over a real temp root. */
final class RestFixture implements AutoCloseable {
    final Path base;
    final Path root;
    final SandboxRoot sandboxRoot;
    final FileStore store;
    final ListenerContext listeners;
    final RestServer server;
    /** The watch, with a short heartbeat so tests see one (runtime-contract §4.2). */
    final io.sandboxd.daemon.fs.watch.FileWatcher watcher;

    static final io.sandboxd.daemon.fs.watch.WatchSettings WATCH_SETTINGS =
            new io.sandboxd.daemon.fs.watch.WatchSettings(
                    8, 64, 1000, 8 << 20, Duration.ofMillis(300), Duration.ofSeconds(30));

    RestFixture(Path tmp) throws IOException {
        this(tmp, c -> c, Map.of());
    }

    RestFixture(Path tmp, UnaryOperator<DaemonConfig> configure, Map<String, String> env) throws IOException {
        this(tmp, configure, env, ArchiveLimits.defaults());
    }

    RestFixture(Path tmp, UnaryOperator<DaemonConfig> configure, Map<String, String> env, ArchiveLimits archiveLimits)
            throws IOException {
        base = tmp.toRealPath();
        root = Files.createDirectories(base.resolve("root"));
        DaemonConfig config = configure.apply(TestConfig.forRoot(root));
        sandboxRoot = new SandboxRoot(root);
        DirectBuffers fileBuffers = DirectBuffers.forFileContent();
        store = new FileStore(sandboxRoot, fileBuffers);
        listeners = new ListenerContext(
                new DaemonState(), AccessToken.from(config.authToken()), TestConfig.silentLog(), new Metrics());
        watcher = new io.sandboxd.daemon.fs.watch.FileWatcher(sandboxRoot, WATCH_SETTINGS);
        server = new RestServer(
                config,
                listeners,
                store,
                fileBuffers,
                env,
                new FileOperations(sandboxRoot),
                new DirectoryArchives(sandboxRoot, archiveLimits),
                watcher);
        server.start();
    }

    /** One request on a new connection ({@code Connection: close}), its response. */
    RawResponse exchange(RawRequest request) throws IOException {
        return RawHttp.exchange("127.0.0.1", server.port(), request.closing(), Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        watcher.close();
        server.stop(System.nanoTime() + 5_000_000_000L);
        sandboxRoot.close();
    }
}
