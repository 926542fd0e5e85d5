package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.SandboxRoot;
import io.sandboxd.daemon.lifecycle.DaemonState;
import io.sandboxd.daemon.metrics.Metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    final TestHttp http;

    RestFixture(Path tmp) throws IOException {
        this(tmp, c -> c, Map.of());
    }

    RestFixture(Path tmp, UnaryOperator<DaemonConfig> configure, Map<String, String> env) throws IOException {
        base = tmp.toRealPath();
        root = Files.createDirectories(base.resolve("root"));
        DaemonConfig config = configure.apply(TestConfig.forRoot(root));
        sandboxRoot = new SandboxRoot(root);
        DirectBuffers fileBuffers = DirectBuffers.forFileContent();
        store = new FileStore(sandboxRoot, fileBuffers);
        listeners = new ListenerContext(new DaemonState(), AccessToken.from(config.authToken()), TestConfig.silentLog(),
                new Metrics());
        server = new RestServer(config, listeners, store, fileBuffers, env);
        server.start();
        http = new TestHttp(server.port());
    }

    @Override
    public void close() {
        server.stop(System.nanoTime() + 5_000_000_000L);
        sandboxRoot.close();
    }
}
