package io.sandboxd.testkit;

import io.sandboxd.testkit.proc.ProcStat;
import io.sandboxd.testkit.proc.ProcessObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A daemon started from a {@link DaemonSpec}. {@link #close()} stops it (SIGTERM, then SIGKILL
 * after 15 s), kills whatever descendants it left and deletes the temporary root the launcher
 * made. A daemon still running when this JVM exits is killed with its descendants by a shutdown
 * hook, and launcher-made roots are deleted then, so a crashed test run leaves nothing behind.
 */
public final class RunningDaemon implements AutoCloseable {
    private static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(15);
    private static final long POLL_MS = 5;
    private static final Set<RunningDaemon> LIVE = ConcurrentHashMap.newKeySet();
    /** Launcher-made roots not yet deleted by close(): deleted at JVM exit (a restart may reuse one until then). */
    private static final Set<RunningDaemon> OWN_ROOTS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            LIVE.forEach(RunningDaemon::killTree);
                            OWN_ROOTS.forEach(RunningDaemon::deleteOwnRoot);
                        },
                        "sandboxd-testkit-cleanup"));
    }

    private final Process process;
    private final DaemonSpec spec;
    private final String host;
    private final int grpcPort;
    private final int restPort;
    private final Path rootDir;
    private final boolean ownRoot;
    private final long launchedNanos;
    private final ProcessObserver observer;
    private volatile long acceptingNanos = -1;
    private volatile long readyNanos = -1;

    RunningDaemon(
            Process process,
            DaemonSpec spec,
            String host,
            int grpcPort,
            int restPort,
            Path rootDir,
            boolean ownRoot,
            long launchedNanos) {
        this.process = process;
        this.spec = spec;
        this.host = host;
        this.grpcPort = grpcPort;
        this.restPort = restPort;
        this.rootDir = rootDir;
        this.ownRoot = ownRoot;
        this.launchedNanos = launchedNanos;
        this.observer = new ProcessObserver(process.pid());
        LIVE.add(this);
        if (ownRoot) {
            OWN_ROOTS.add(this);
        }
    }

    public Process process() {
        return process;
    }

    /** The pid of the process started (with a launcher script that execs, also the JVM's). */
    public long pid() {
        return process.pid();
    }

    /**
     * The daemon's JVM: {@link #pid()} if that is a JVM (the launcher execs it), else the first JVM
     * among its descendants, else {@link #pid()}.
     */
    public long jvmPid() {
        if (observer.isJvm()) {
            return pid();
        }
        return process.descendants()
                .map(ProcessHandle::pid)
                .filter(io.sandboxd.testkit.proc.HeapProbe::isJvm)
                .findFirst()
                .orElse(pid());
    }

    public DaemonSpec spec() {
        return spec;
    }

    public int grpcPort() {
        return grpcPort;
    }

    public int restPort() {
        return restPort;
    }

    /** {@code 127.0.0.1:PORT} of the gRPC listener. */
    public String grpcTarget() {
        return host + ":" + grpcPort;
    }

    /** {@code http://127.0.0.1:PORT} of the REST listener (no trailing slash). */
    public String restBase() {
        return "http://" + host + ":" + restPort;
    }

    public Path rootDir() {
        return rootDir;
    }

    /** /proc of the started process (threads, fds, RSS, descendants, zombies). */
    public ProcessObserver observer() {
        return observer;
    }

    public Path stdoutLog() {
        return spec.stdoutLog();
    }

    public Path stderrLog() {
        return spec.stderrLog();
    }

    /** Everything the daemon wrote to stdout so far (since the log file was created: restarts append). */
    public String stdout() {
        return read(stdoutLog());
    }

    /** Everything the daemon wrote to stderr so far (its request log and errors). */
    public String stderr() {
        return read(stderrLog());
    }

    /** The last {@code maxBytes} of each log, labelled, for failure messages. */
    public String logTail(int maxBytes) {
        return "--- stdout (" + stdoutLog() + ")\n" + tail(stdoutLog(), maxBytes) + "\n--- stderr (" + stderrLog()
                + ")\n" + tail(stderrLog(), maxBytes);
    }

    /** {@link System#nanoTime()} just before the process was started. */
    public long launchedNanos() {
        return launchedNanos;
    }

    /** From exec to both ports accepting connections; null until {@link #awaitReady()} saw it. */
    public Duration acceptingAfter() {
        return acceptingNanos < 0 ? null : Duration.ofNanos(acceptingNanos - launchedNanos);
    }

    /** From exec to {@code /v1/health} 200 with the gRPC port accepting; null until ready. */
    public Duration readyAfter() {
        return readyNanos < 0 ? null : Duration.ofNanos(readyNanos - launchedNanos);
    }

    /**
     * Waits until both ports accept and {@code GET /v1/health} answers 200, within the spec's ready
     * timeout. {@link DaemonSpec#start()} calls it; after {@link DaemonSpec#launch()} call it yourself.
     */
    public void awaitReady() throws DaemonStartException {
        long deadline = launchedNanos + spec.readyTimeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                int code = waitForExit();
                String tail = logTail(4000);
                boolean taken = tail.contains("Address already in use")
                        || tail.contains("BindException")
                        || tail.contains("already in use");
                throw new DaemonStartException(
                        "daemon exited with " + code + " before it was ready (" + spec + ")\n" + tail,
                        OptionalInt.of(code),
                        taken);
            }
            if (acceptingNanos < 0 && accepts(grpcPort) && accepts(restPort)) {
                acceptingNanos = System.nanoTime();
            }
            if (acceptingNanos >= 0 && healthStatus() == 200) {
                readyNanos = System.nanoTime();
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new DaemonStartException(
                        "daemon not ready within " + spec.readyTimeout.toSeconds() + " s (ports "
                                + (acceptingNanos >= 0 ? "accepting" : "not accepting") + ", " + spec + ")\n"
                                + logTail(4000),
                        OptionalInt.empty(),
                        false);
            }
            Poll.sleep(POLL_MS);
        }
    }

    /** The status of {@code GET /v1/health} (which never needs a token), or -1 if there was no answer. */
    public int healthStatus() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, restPort), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /v1/health HTTP/1.1\r\nHost: " + host + ":" + restPort + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(12); // "HTTP/1.1 200"
            String line = new String(head, StandardCharsets.ISO_8859_1);
            return line.startsWith("HTTP/1.") && line.length() == 12 ? Integer.parseInt(line.substring(9, 12)) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code once the process has exited (128+N after death by signal N). */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /** Waits up to {@code timeout} for the process to exit. */
    public OptionalInt awaitExit(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LIVE.remove(this);
                return OptionalInt.of(process.exitValue());
            }
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalInt.empty();
        }
    }

    /** Sends a signal by name ({@code "TERM"}, {@code "INT"}, {@code "HUP"}, …) and returns at once. */
    public void signal(String name) {
        if (!name.matches("[A-Z0-9]+")) {
            throw new IllegalArgumentException("not a signal name: " + name);
        }
        try {
            Process k = new ProcessBuilder("kill", "-s", name, Long.toString(pid()))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (k.waitFor() != 0 && process.isAlive()) {
                throw new IllegalStateException("kill -s " + name + " " + pid() + " failed: " + out.strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link #stop(Duration)} with a 15 s grace. */
    public int stop() {
        return stop(DEFAULT_STOP_GRACE);
    }

    /**
     * SIGTERM, then SIGKILL if the daemon has not exited within {@code grace}; then SIGKILL to every
     * descendant it left (read before the signal: once the daemon is gone they are reparented).
     *
     * @return the exit code: the daemon's own after a graceful stop, 137 after the SIGKILL
     */
    public int stop(Duration grace) {
        List<ProcStat> descendants = descendantsOrNone();
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        int code = waitForExit();
        killAll(descendants);
        return code;
    }

    /** SIGKILL of the daemon alone: its children are left as a crash would leave them. */
    public int sigkill() {
        process.destroyForcibly();
        return waitForExit();
    }

    /** SIGKILL of the daemon and every descendant (test cleanup). */
    public void killTree() {
        List<ProcStat> descendants = descendantsOrNone();
        process.destroyForcibly();
        killAll(descendants);
        waitForExit();
    }

    /**
     * Stops the daemon if it still runs ({@link #stop()}, which also kills the descendants it
     * left), and deletes the root directory if the launcher made it (a root given with
     * {@link DaemonSpec#withRootDir} is the caller's and stays).
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            stop();
        }
        LIVE.remove(this);
        deleteOwnRoot();
    }

    /** Deletes a launcher-made root; symlinks are removed, never followed. */
    void deleteOwnRoot() {
        OWN_ROOTS.remove(this);
        if (!ownRoot || !Files.isDirectory(rootDir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(rootDir, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes a)
                        throws IOException {
                    Files.deleteIfExists(file);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    Files.deleteIfExists(file);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // best effort: a file the daemon's processes made unreadable stays in the temp dir
        }
    }

    private int waitForExit() {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (process.isAlive()) {
            return -1;
        }
        LIVE.remove(this);
        return process.exitValue();
    }

    /** Empty once the daemon has gone: its pid may then be another process's, whose children are not ours. */
    private List<ProcStat> descendantsOrNone() {
        if (!process.isAlive()) {
            return List.of();
        }
        try {
            return observer.descendants();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static void killAll(List<ProcStat> procs) {
        for (ProcStat p : procs) {
            ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String tail(Path file, int maxBytes) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long len = f.length();
            long from = Math.max(0, len - maxBytes);
            byte[] buf = new byte[(int) (len - from)];
            f.seek(from);
            f.readFully(buf);
            return new String(buf, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return "sandboxd pid " + pid() + " grpc " + grpcTarget() + " rest " + restBase();
    }
}
