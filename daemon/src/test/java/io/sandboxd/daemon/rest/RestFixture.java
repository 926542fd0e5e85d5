package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.cli.DaemonConfig;
import io.sandboxd.daemon.cli.DaemonServices;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A real RestServer on an ephemeral loopback port over a real temp root. */
final class RestFixture implements AutoCloseable {
    final Path base;
    final Path root;
    final DaemonServices services;
    final RestServer server;
    final TestHttp http;

    RestFixture(Path tmp) throws IOException {
        this(tmp, c -> c, Map.of());
    }

    RestFixture(Path tmp, UnaryOperator<DaemonConfig> configure, Map<String, String> env) throws IOException {
        base = tmp.toRealPath();
        root = Files.createDirectories(base.resolve("root"));
        services = DaemonServices.create(configure.apply(DaemonConfig.forTests(root)));
        services.requestLog().setEnabled(false);
        server = new RestServer(services, () -> env);
        server.start();
        http = new TestHttp(server.port());
    }

    @Override
    public void close() {
        server.stop(System.nanoTime() + 5_000_000_000L);
        services.root().close();
    }
}
