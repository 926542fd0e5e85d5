package io.sandboxd.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How to start a sandboxd daemon as a separate OS process, immutable: every {@code with…} returns
 * a changed copy, so one spec can start the same daemon again (e.g. on the same ports after a
 * crash: {@code spec.withPorts(d.grpcPort(), d.restPort())}).
 *
 * <p>Three ways to run it: the packaged jar ({@code java [jvm options] -jar sandboxd.jar}), the
 * launcher script ({@code ./sandboxd}, JVM options through {@code SANDBOXD_JAVA_OPTS}), or any main
 * class on a class path (for tests of the launcher itself). The daemon always gets
 * {@code --listen-host --grpc-port --rest-port --root-dir}, then {@link #withArgs extra arguments}.
 *
 * <p>Defaults: loopback, two free ports (picked again, up to 3 times, if the daemon finds one
 * taken), a fresh temporary root directory (deleted by {@link RunningDaemon#close()}), logs in {@code target/daemon-logs} (system property
 * {@code sandboxd.logDir}), 120 s to become ready, this JVM's {@code java}. Inherited environment
 * variables starting with {@code SANDBOXD_} are removed (they are the daemon's flags, so a
 * developer's shell could otherwise change what a test runs) unless {@link #withInheritedSandboxdEnv}.
 */
public final class DaemonSpec {
    enum Kind {
        JAR,
        SCRIPT,
        MAIN_CLASS
    }

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    final Kind kind;
    final Path program;
    final String classPath;
    final String mainClass;
    final Path java;
    final List<String> jvmOptions;
    final List<String> args;
    final Map<String, String> env;
    final boolean inheritSandboxdEnv;
    final Integer openFileLimit;
    final List<String> wrapper;
    final Path rootDir;
    final String listenHost;
    final int grpcPort;
    final int restPort;
    final Path logDir;
    final String name;
    final Duration readyTimeout;

    private DaemonSpec(
            Kind kind,
            Path program,
            String classPath,
            String mainClass,
            Path java,
            List<String> jvmOptions,
            List<String> args,
            Map<String, String> env,
            boolean inheritSandboxdEnv,
            Integer openFileLimit,
            List<String> wrapper,
            Path rootDir,
            String listenHost,
            int grpcPort,
            int restPort,
            Path logDir,
            String name,
            Duration readyTimeout) {
        this.kind = kind;
        this.program = program;
        this.classPath = classPath;
        this.mainClass = mainClass;
        this.java = java;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.args = List.copyOf(args);
        this.env = Map.copyOf(env);
        this.inheritSandboxdEnv = inheritSandboxdEnv;
        this.openFileLimit = openFileLimit;
        this.wrapper = List.copyOf(wrapper);
        this.rootDir = rootDir;
        this.listenHost = listenHost;
        this.grpcPort = grpcPort;
        this.restPort = restPort;
        this.logDir = logDir;
        this.name = name;
        this.readyTimeout = readyTimeout;
    }

    private static DaemonSpec of(Kind kind, Path program, String classPath, String mainClass) {
        return new DaemonSpec(
                kind,
                program,
                classPath,
                mainClass,
                currentJava(),
                List.of(),
                List.of(),
                Map.of(),
                false,
                null,
                List.of(),
                null,
                "127.0.0.1",
                0,
                0,
                Path.of(System.getProperty("sandboxd.logDir", "target/daemon-logs")),
                "daemon-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet(),
                Duration.ofSeconds(120));
    }

    /** {@code java -jar JAR}. */
    public static DaemonSpec jar(Path jar) {
        return of(Kind.JAR, jar, null, null);
    }

    /**
     * The packaged daemon: system property {@code sandboxd.jar}, else
     * {@code daemon/target/sandboxd.jar} under {@link #repoRoot()}.
     */
    public static DaemonSpec packagedJar() {
        String p = System.getProperty("sandboxd.jar");
        return jar(p != null ? Path.of(p) : repoRoot().resolve("daemon/target/sandboxd.jar"));
    }

    /** A launcher script such as {@code ./sandboxd} (it must exec the JVM so that signals reach it). */
    public static DaemonSpec launcherScript(Path script) {
        return of(Kind.SCRIPT, script, null, null);
    }

    /** The repository's {@code ./sandboxd} launcher. */
    public static DaemonSpec repoLauncher() {
        return launcherScript(repoRoot().resolve("sandboxd"));
    }

    /** {@code java -cp CLASSPATH MAIN}: any program that takes the daemon's port and root flags. */
    public static DaemonSpec mainClass(String classPath, String mainClass) {
        return of(Kind.MAIN_CLASS, null, classPath, mainClass);
    }

    /**
     * The repository root: system property {@code sandboxd.repoRoot}, else the nearest directory
     * upwards from the working directory that holds {@code mvnw} and {@code proto/}.
     */
    public static Path repoRoot() {
        String p = System.getProperty("sandboxd.repoRoot");
        if (p != null) {
            return Path.of(p).toAbsolutePath().normalize();
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mvnw")) && Files.isDirectory(d.resolve("proto"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "cannot find the repository root from " + Path.of("").toAbsolutePath() + " (set -Dsandboxd.repoRoot)");
    }

    private static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    private DaemonSpec copy(
            Path java,
            List<String> jvmOptions,
            List<String> args,
            Map<String, String> env,
            boolean inheritSandboxdEnv,
            Integer openFileLimit,
            List<String> wrapper,
            Path rootDir,
            String listenHost,
            int grpcPort,
            int restPort,
            Path logDir,
            String name,
            Duration readyTimeout) {
        return new DaemonSpec(
                kind,
                program,
                classPath,
                mainClass,
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** The {@code java} binary (e.g. another JDK's); for a script, its {@code JAVA_HOME}. */
    public DaemonSpec withJava(Path javaBinary) {
        return copy(
                javaBinary,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Replaces the JVM options (for a script: passed as {@code SANDBOXD_JAVA_OPTS}). */
    public DaemonSpec withJvmOptions(String... options) {
        return withJvmOptions(List.of(options));
    }

    public DaemonSpec withJvmOptions(List<String> options) {
        return copy(
                java,
                options,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Adds daemon arguments after the port and root flags, e.g. {@code "--max-processes", "8"}. */
    public DaemonSpec withArgs(String... more) {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of(more));
        return copy(
                java,
                jvmOptions,
                all,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Sets an environment variable of the daemon. */
    public DaemonSpec withEnv(String key, String value) {
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put(key, Objects.requireNonNull(value));
        return copy(
                java,
                jvmOptions,
                args,
                all,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Requires this bearer token on every call but health ({@code SANDBOXD_AUTH_TOKEN}, so it is not in {@code ps}). */
    public DaemonSpec withAuthToken(String token) {
        return withEnv("SANDBOXD_AUTH_TOKEN", token);
    }

    /** Keeps the {@code SANDBOXD_*} variables of this JVM's environment (e.g. for a benchmark tool). */
    public DaemonSpec withInheritedSandboxdEnv(boolean inherit) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inherit,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Runs the daemon under {@code ulimit -n LIMIT} (through {@code sh -c '… exec'}: same pid). */
    public DaemonSpec withOpenFileLimit(int limit) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                limit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /**
     * Runs the daemon's command through {@code wrapper}, an argv that must exec the command appended
     * to it (so the pid stays the daemon's), e.g. {@code "sh", "-c", "trap '' INT; exec \"$@\"", "sh"}.
     */
    public DaemonSpec withWrapper(String... argv) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                List.of(argv),
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    public DaemonSpec withRootDir(Path dir) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                dir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Fixed ports instead of free ones (0 = pick a free one). */
    public DaemonSpec withPorts(int grpc, int rest) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpc,
                rest,
                logDir,
                name,
                readyTimeout);
    }

    /** {@code --listen-host} (default 127.0.0.1); clients still connect to loopback for a wildcard. */
    public DaemonSpec withListenHost(String host) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                host,
                grpcPort,
                restPort,
                logDir,
                name,
                readyTimeout);
    }

    /** Logs go to {@code DIR/NAME.stdout.log} and {@code DIR/NAME.stderr.log}, appended. */
    public DaemonSpec withLogs(Path dir, String logName) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                dir,
                logName,
                readyTimeout);
    }

    /** Same directory, another name. */
    public DaemonSpec withLogName(String logName) {
        return withLogs(logDir, logName);
    }

    public DaemonSpec withReadyTimeout(Duration timeout) {
        return copy(
                java,
                jvmOptions,
                args,
                env,
                inheritSandboxdEnv,
                openFileLimit,
                wrapper,
                rootDir,
                listenHost,
                grpcPort,
                restPort,
                logDir,
                name,
                timeout);
    }

    public List<String> args() {
        return args;
    }

    public List<String> jvmOptions() {
        return jvmOptions;
    }

    public Path stdoutLog() {
        return logDir.resolve(name + ".stdout.log");
    }

    public Path stderrLog() {
        return logDir.resolve(name + ".stderr.log");
    }

    /**
     * Starts the daemon and waits until it is ready ({@code /v1/health} answers 200 and the gRPC
     * port accepts). On picked ports that the daemon finds taken, picks again (3 attempts).
     *
     * @throws DaemonStartException if it exits first or is not ready in time (it is killed then)
     */
    public RunningDaemon start() throws IOException {
        DaemonStartException last = null;
        int attempts = grpcPort == 0 || restPort == 0 ? 3 : 1;
        for (int i = 0; i < attempts; i++) {
            RunningDaemon d = launch();
            try {
                d.awaitReady();
                return d;
            } catch (DaemonStartException e) {
                d.killTree();
                d.deleteOwnRoot();
                if (!e.portTaken()) {
                    throw e;
                }
                last = e;
            } catch (IOException | RuntimeException e) {
                d.killTree();
                d.deleteOwnRoot();
                throw e;
            }
        }
        throw last;
    }

    /** Starts the daemon without waiting for it (e.g. to see it refuse a bad flag: {@link RunningDaemon#awaitExit}). */
    public RunningDaemon launch() throws IOException {
        if (kind != Kind.MAIN_CLASS && !Files.isRegularFile(program)) {
            throw new IOException("daemon " + (kind == Kind.JAR ? "jar" : "launcher") + " not found: " + program
                    + (kind == Kind.JAR ? " (build it: ./mvnw -B -q -pl daemon -am -DskipTests package)" : ""));
        }
        int[] picked = FreePorts.pick(2);
        int grpc = grpcPort != 0 ? grpcPort : picked[0];
        int rest = restPort != 0 ? restPort : (picked[1] != grpc ? picked[1] : picked[0]);
        Path root = rootDir != null ? rootDir : Files.createTempDirectory("sandboxd-root-");
        boolean ownRoot = rootDir == null;
        Files.createDirectories(root);
        Files.createDirectories(logDir);

        List<String> cmd = new ArrayList<>(wrapper);
        if (openFileLimit != null) {
            cmd.addAll(List.of("sh", "-c", "ulimit -n " + openFileLimit + " && exec \"$@\"", "sh"));
        }
        switch (kind) {
            case JAR -> {
                cmd.add(java.toString());
                cmd.addAll(jvmOptions);
                cmd.addAll(List.of("-jar", program.toString()));
            }
            case MAIN_CLASS -> {
                cmd.add(java.toString());
                cmd.addAll(jvmOptions);
                cmd.addAll(List.of("-cp", classPath, mainClass));
            }
            case SCRIPT -> cmd.add(program.toAbsolutePath().toString());
        }
        cmd.addAll(List.of(
                "--listen-host",
                listenHost,
                "--grpc-port",
                Integer.toString(grpc),
                "--rest-port",
                Integer.toString(rest),
                "--root-dir",
                root.toString()));
        cmd.addAll(args);

        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(stdoutLog().toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(stderrLog().toFile()));
        Map<String, String> environment = pb.environment();
        if (!inheritSandboxdEnv) {
            environment.keySet().removeIf(k -> k.startsWith("SANDBOXD_"));
        }
        if (kind == Kind.SCRIPT) {
            environment.put(
                    "JAVA_HOME", java.toAbsolutePath().getParent().getParent().toString());
            if (!jvmOptions.isEmpty()) {
                environment.put("SANDBOXD_JAVA_OPTS", String.join(" ", jvmOptions));
            }
        }
        environment.putAll(env);
        long launched = System.nanoTime();
        Process p = pb.start();
        String connectHost = listenHost.equals("0.0.0.0") || listenHost.equals("::") ? "127.0.0.1" : listenHost;
        return new RunningDaemon(p, this, connectHost, grpc, rest, root, ownRoot, launched);
    }

    @Override
    public String toString() {
        return kind + " " + (program != null ? program : classPath + " " + mainClass) + " jvm=" + jvmOptions + " args="
                + args + " env=" + env.keySet();
    }
}
