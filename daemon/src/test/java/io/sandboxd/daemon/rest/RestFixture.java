package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.auth.AccessToken;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.daemon.fs.DirectBuffers;
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
        listeners = new ListenerContext(
                new DaemonState(), AccessToken.from(config.authToken()), TestConfig.silentLog(), new Metrics());
        server = new RestServer(config, listeners, store, fileBuffers, env, new FileOperations(sandboxRoot));
        server.start();
    }

    /** One request on a new connection ({@code Connection: close}), its response. */
    RawResponse exchange(RawRequest request) throws IOException {
        return RawHttp.exchange("127.0.0.1", server.port(), request.closing(), Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        server.stop(System.nanoTime() + 5_000_000_000L);
        sandboxRoot.close();
    }
}
