package io.sandboxd.daemon.cli;

import io.sandboxd.daemon.metrics.Metrics;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Uses the second core while the main thread parses the command line: builds the meter registry
 * and runs the costly static initialisers that do not depend on any flag, so the listeners
 * start on warm classes. Measured on 2 cores: picocli's parse is ~100 ms of cold reflection on
 * the main thread, and the work below about as long again (see {@link #CLASSES}).
 *
 * <p>Only warm-up: if any step fails, the same code runs again on first use and fails (or not)
 * there, exactly as without the preloader. The listeners start only after {@link #metrics()}
 * returned, which waits for the whole warm-up, so no class is initialised by two threads at
 * once (initialisers that reach each other from two threads could deadlock).
 */
final class StartupPreloader {
    /**
     * Classes initialised in this order (wall ms measured on 2 busy cores, JDK 17 + AppCDS, in
     * parallel with the parse; the registry itself ~60 ms). A class that is renamed or removed
     * is only a lost warm-up; {@code StartupPreloaderTest} fails on it so the list stays current.
     */
    static final List<String> CLASSES = List.of(
            "io.sandboxd.daemon.fs.Posix", // ~75 ms: JNA unpacks and loads libjnidispatch, binds libc
            "io.sandboxd.daemon.process.os.NativeIo", // binds the process core's libc calls (else the first Execute
            // does)
            "io.sandboxd.daemon.process.os.PosixSpawn",
            "io.sandboxd.api.process.v1.ProcessProto", // ~30 ms: the descriptor of process.proto
            "io.netty.channel.epoll.Epoll", // ~17 ms: loads the native epoll transport
            "io.grpc.netty.NettyServerBuilder", // ~8 ms
            "org.eclipse.jetty.http.MimeTypes", // ~75 ms: Locale.getAvailableLocales(), ~1,000 locales
            "org.eclipse.jetty.server.Server"); // ~5 ms

    private final CompletableFuture<Metrics> metrics = new CompletableFuture<>();

    private StartupPreloader() {}

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
            // logback's initialisation (the text format until the flags are parsed), off the main
            // thread; Main installs the chosen format only after this warm-up ended
            org.slf4j.LoggerFactory.getILoggerFactory();
            m = new Metrics();
            ClassLoader loader = StartupPreloader.class.getClassLoader();
            for (String name : CLASSES) {
                try {
                    Class.forName(name, true, loader);
                } catch (Throwable e) { // LinkageError too: first use reports it
                    continue;
                }
            }
        } catch (Throwable e) {
            // only a lost warm-up, see the class comment
        } finally {
            metrics.complete(m);
        }
    }

    /** The registry built by the warm-up, after the whole warm-up ended; a new one if it failed. */
    Metrics metrics() {
        Metrics m = metrics.join();
        return m != null ? m : new Metrics();
    }
}
