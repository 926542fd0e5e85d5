package io.sandboxd.daemon.rest;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.sandboxd.daemon.config.DaemonConfig;
import io.sandboxd.daemon.config.ListenerContext;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import io.sandboxd.daemon.fs.DirectBuffers;
import io.sandboxd.daemon.fs.DirectoryArchives;
import io.sandboxd.daemon.fs.FileOperations;
import io.sandboxd.daemon.fs.FileStore;
import io.sandboxd.daemon.fs.watch.FileWatcher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The REST API on --rest-port (runtime-contract §2): Javalin on Jetty 12. A thin adapter: requests go to
 * {@link FilesHandler} (→ {@link FileStore}), health, metadata and metrics, and the extension
 * routes under {@link ExtensionRoutes#PREFIX} (runtime-contract §4); every error leaves as
 * {@code {"code","message"}} JSON. The core objects it serves are built and handed over by the daemon.
 */
public final class RestServer {
    private static final System.Logger LOG = System.getLogger(RestServer.class.getName());
    static final String FILES_METHODS = "DELETE, GET, HEAD, PUT";
    static final String READ_METHODS = "GET, HEAD";
    static final int POOL_MAX_THREADS = 250;
    static final int POOL_MIN_THREADS = 2;
    static final int POOL_IDLE_TIMEOUT_MS = 60_000;

    private final DaemonConfig config;
    private final ListenerContext listeners;
    private final FileStore store;
    private final FileOperations fileOps;
    private final DirectoryArchives archives;
    private final FileWatcher watcher;
    private final DirectBuffers fileBuffers;
    private final Map<String, String> environment;
    private volatile Javalin app;

    /**
     * @param fileBuffers the pool the store reads downloads into; raw uploads gather in it too
     * @param environment the variables {@code /v1/metadata} picks from (the daemon's own)
     * @param fileOps     stat, list, mkdir, move, chmod (runtime-contract §4.3)
     * @param archives    directory archives (runtime-contract §4.3)
     * @param watcher     the filesystem watch (runtime-contract §4.2)
     */
    public RestServer(
            DaemonConfig config,
            ListenerContext listeners,
            FileStore store,
            DirectBuffers fileBuffers,
            Map<String, String> environment,
            FileOperations fileOps,
            DirectoryArchives archives,
            FileWatcher watcher) {
        this.config = config;
        this.listeners = listeners;
        this.store = store;
        this.fileOps = fileOps;
        this.archives = archives;
        this.watcher = watcher;
        this.fileBuffers = fileBuffers;
        this.environment = environment;
    }

    public void start() throws IOException {
        FilesHandler files = new FilesHandler(store, fileBuffers);
        Javalin javalin = Javalin.create(cfg -> {
            ExtensionRoutes extensions = new ExtensionRoutes(cfg.routes);
            cfg.startup.showJavalinBanner = false;
            cfg.startup.showOldJavalinVersionWarning = false;
            cfg.http.compressionStrategy = CompressionStrategy.NONE;
            cfg.http.generateEtags = false;
            cfg.http.prefer405over404 = true;
            cfg.jetty.threadPool = threadPool();
            cfg.jetty.modifyHttpConfiguration(hc -> {
                // %2F, %2E%2E and // must reach us undecoded and unnormalised: we decode once ourselves
                hc.setUriCompliance(UriCompliance.UNSAFE);
                // ...and so must a `..` that climbs above the URI's root, which Jetty itself would refuse
                // with a bare 400: the files handler answers it 403 like every other escape
                hc.addCustomizer(DotSegmentsAboveRoot.customizer());
                hc.setSendServerVersion(false);
                // a 4095-byte path fully percent-encoded by an SDK is ~12 KiB of request line
                hc.setRequestHeaderSize(64 * 1024);
                hc.setSendXPoweredBy(false);
                hc.setRelativeRedirectAllowed(true);
                // uploads: 64 KiB per socket read instead of 8 KiB, and chunks large enough to go
                // to the file as they are (RawBodySource); the largest size Jetty's pool keeps
                hc.setInputBufferSize(64 * 1024);
            });
            cfg.jetty.addConnector((server, httpConfig) -> {
                ServerConnector c = new ServerConnector(server, new DotSegmentsAboveRoot(httpConfig));
                c.setHost(config.listenHost());
                c.setPort(config.restPort());
                return c;
            });
            cfg.jetty.modifyServletContextHandler(h -> h.getServletHandler().setDecodeAmbiguousURIs(true));
            cfg.jetty.modifyServer(s -> {
                s.setErrorHandler(new JsonErrorHandler());
                // stop() then waits (up to the shutdown deadline) for in-flight requests to finish
                s.insertHandler(new org.eclipse.jetty.server.handler.GracefulHandler());
                s.setRequestLog(new RestTelemetry(listeners.metrics().registry(), listeners.requestLog(), extensions));
            });

            cfg.routes.before(this::authenticate);
            for (String p : new String[] {"/v1/files", "/v1/files/<path>"}) {
                cfg.routes.get(p, files::get);
                cfg.routes.head(p, files::get);
                cfg.routes.put(p, files::put);
                cfg.routes.delete(p, files::delete);
            }
            cfg.routes.get("/v1/health", this::health);
            cfg.routes.head("/v1/health", this::health);
            cfg.routes.get("/v1/metadata", this::metadata);
            cfg.routes.head("/v1/metadata", this::metadata);
            cfg.routes.get("/metrics", this::metrics);
            cfg.routes.head("/metrics", this::metrics);
            // extension routes (runtime-contract §4): one registration per feature
            new FileOpsHandler(fileOps).register(extensions);
            new ArchiveHandler(archives).register(extensions);
            new WatchHandler(watcher).register(extensions);

            cfg.routes.exception(SandboxException.class, (e, ctx) -> ApiErrors.write(ctx, e));
            cfg.routes.exception(Exception.class, (e, ctx) -> {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "unexpected error on " + ctx.method() + " " + RestTelemetry.route(ctx.path(), extensions),
                        e);
                ApiErrors.write(ctx, 500, "INTERNAL", "internal error");
            });
            cfg.routes.error(404, ctx -> {
                if (ctx.attribute(ApiErrors.WRITTEN) == null) {
                    ApiErrors.write(
                            ctx, 404, "NOT_FOUND", "no such route: " + ctx.method() + " " + shorten(ctx.path()));
                }
            });
            cfg.routes.error(405, ctx -> {
                if (ctx.attribute(ApiErrors.WRITTEN) == null) {
                    ctx.header("Allow", allowFor(ctx.path(), extensions));
                    ApiErrors.write(
                            ctx,
                            405,
                            "INVALID_ARGUMENT",
                            "method " + ctx.method() + " is not allowed here; allowed: "
                                    + allowFor(ctx.path(), extensions));
                }
            });
        });
        try {
            javalin.start(); // on the connector above
        } catch (RuntimeException e) {
            throw new IOException(
                    "REST listener on " + config.listenHost() + ":" + config.restPort() + ": " + e.getMessage(), e);
        }
        for (Connector c : javalin.jettyServer().server().getConnectors()) {
            if (c instanceof ServerConnector sc) {
                sc.setIdleTimeout(config.httpIdleTimeout().toMillis());
            }
        }
        app = javalin;
    }

    /**
     * Javalin's default pool (8-250 threads) keeps 8 threads parked at idle; an idle daemon
     * needs only the acceptor and the selector, and the pool grows on demand (threads then
     * stay for {@link #POOL_IDLE_TIMEOUT_MS} after the last request). Same maximum as Javalin's.
     */
    static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(POOL_MAX_THREADS, POOL_MIN_THREADS, POOL_IDLE_TIMEOUT_MS);
        pool.setName("JettyServerThreadPool");
        return pool;
    }

    private static String shorten(String path) {
        return path.length() <= 200 ? path : path.substring(0, 200) + "...";
    }

    static String allowFor(String path, ExtensionRoutes extensions) {
        String extension = path == null ? null : extensions.allow(path);
        if (extension != null) {
            return extension;
        }
        return path != null && (path.equals(RawPath.PREFIX) || path.startsWith(RawPath.PREFIX + "/"))
                ? FILES_METHODS
                : READ_METHODS;
    }

    private void authenticate(Context ctx) throws SandboxException {
        if (!listeners.accessToken().enabled()) {
            return;
        }
        String p = ctx.path();
        if (p.equals("/v1/health") || p.equals("/v1/health/")) {
            return;
        }
        if (!listeners.accessToken().permits(ctx.header("Authorization"))) {
            ctx.header("WWW-Authenticate", "Bearer");
            ctx.skipRemainingHandlers();
            throw new SandboxException(ErrorKind.UNAUTHENTICATED, "missing or invalid bearer token");
        }
    }

    private void health(Context ctx) throws SandboxException {
        if (!listeners.state().isServing()) {
            throw new SandboxException(ErrorKind.UNAVAILABLE, "sandboxd is shutting down");
        }
        long uptime = listeners.state().uptimeSeconds();
        json(ctx, Json.bytes(g -> {
            g.writeStartObject();
            g.writeStringProperty("status", "ok");
            g.writeNumberProperty("uptime_seconds", uptime);
            g.writeEndObject();
        }));
    }

    private void metadata(Context ctx) {
        Map<String, String> env = MetadataEnv.filter(environment, config.metadataEnvPrefix());
        json(ctx, Json.bytes(g -> {
            g.writeStartObject();
            g.writeName("env");
            g.writeStartObject();
            for (Map.Entry<String, String> e : env.entrySet()) {
                g.writeStringProperty(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        }));
    }

    private void metrics(Context ctx) {
        byte[] body = listeners.metrics().scrape().getBytes(StandardCharsets.UTF_8);
        ctx.status(200);
        ctx.res().setContentType(listeners.metrics().contentType());
        ctx.res().setContentLength(body.length);
        ctx.result(body);
    }

    private static void json(Context ctx, byte[] body) {
        ctx.status(200);
        ctx.res().setContentType("application/json");
        ctx.res().setContentLength(body.length);
        ctx.result(body);
    }

    public int port() {
        Javalin a = app;
        return a == null ? -1 : a.port();
    }

    /** Stops accepting, lets in-flight requests finish until the deadline, then closes. */
    public void stop(long deadlineNanos) {
        Javalin a = app;
        if (a == null) {
            return;
        }
        long remainingMs = Math.max(100, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        a.jettyServer().server().setStopTimeout(remainingMs);
        a.stop();
    }
}
