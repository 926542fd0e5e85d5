package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.metrics.Metrics;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Uses the second core while the main thread parses the command line: builds the meter registry
 * and runs the costly static initialisers that do not depend on any flag, so the listeners
 * start on warm classes. Measured on 2 cores (README, Benchmark): picocli's parse is ~100 ms of
 * cold reflection on the main thread; the work below is about as long again (Jetty's
 * {@code MimeTypes} enumerates every JDK locale, JNA binds libc, Netty loads its epoll library,
 * the protobuf descriptors are built).
 *
 * <p>Only warm-up: if any step fails, the same code runs again on first use and fails (or not)
 * there, exactly as without the preloader. The listeners start only after {@link #metrics()}
 * returned, which waits for the whole warm-up, so no class is initialised by two threads at
 * once (initialisers that reach each other from two threads could deadlock).
 */
final class StartupPreloader {
    /**
     * Classes initialised in this order. A class that is renamed or removed is only a lost
     * warm-up; {@code StartupPreloaderTest} fails on it so the list is kept current.
     */
    static final List<String> CLASSES = List.of(
            "io.sandboxd.daemon.fs.Posix",                       // JNA: unpacks/loads libjnidispatch, binds libc
            "org.eclipse.jetty.http.MimeTypes",                  // Locale.getAvailableLocales(): ~1,000 locales
            "io.netty.channel.epoll.Epoll",                      // loads the native epoll transport
            "io.grpc.netty.NettyServerBuilder",
            "io.sandboxd.api.process.v1.ProcessServiceGrpc",
            "io.sandboxd.api.process.v1.ProcessProto",           // file descriptor of process.proto
            "io.grpc.protobuf.services.ProtoReflectionServiceV1",
            "io.javalin.Javalin",
            "org.eclipse.jetty.server.Server");

    private final CompletableFuture<Metrics> metrics = new CompletableFuture<>();

    private StartupPreloader() {
    }

    /** Starts the warm-up on a daemon thread. */
    static StartupPreloader start() {
        StartupPreloader p = new StartupPreloader();
        Thread t = new Thread(p::run, "sandboxd-preload");
        t.setDaemon(true);
        t.start();
        return p;
    }

    /** No warm-up: the registry is built on the caller's thread. */
    static StartupPreloader none() {
        StartupPreloader p = new StartupPreloader();
        p.metrics.complete(null);
        return p;
    }

    private void run() {
        Metrics m = null;
        try {
            long t = System.nanoTime();
            m = new Metrics();
            if (System.getProperty("sandboxd.trace") != null) System.err.println("TRACE pre metrics " + (System.nanoTime() - t) / 1000000);
            ClassLoader loader = StartupPreloader.class.getClassLoader();
            for (String name : CLASSES) {
                try {
                    long t1 = System.nanoTime();
                    Class.forName(name, true, loader);
                    if (System.getProperty("sandboxd.trace") != null) System.err.println("TRACE pre " + name + " " + (System.nanoTime() - t1) / 1000000);
                } catch (Throwable e) { // LinkageError too: first use reports it
                    continue;
                }
            }
        } catch (Throwable e) {
            // only a lost warm-up, see the class comment
        } finally {
            Main.threadCpu();
            metrics.complete(m);
        }
    }

    /** The registry built by the warm-up, after the whole warm-up ended; a new one if it failed. */
    Metrics metrics() {
        Metrics m = metrics.join();
        return m != null ? m : new Metrics();
    }
}
