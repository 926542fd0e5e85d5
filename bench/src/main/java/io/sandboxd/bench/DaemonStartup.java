package io.sandboxd.bench;

import io.grpc.Status;
import io.sandboxd.api.process.v1.SendSignalRequest;
import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Our daemon as the benchmark starts it (through the testkit launcher): the way it is deployed —
 * the launcher script, so its JVM options and AppCDS/AOT archive apply, or a jar with explicit
 * JVM options — on free loopback ports; and the startup figures: exec → both ports accepting, and
 * exec → both ports answering a request.
 */
public final class DaemonStartup {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180); // a first launch may build a CDS archive

    /** A started daemon, its JVM and its two startup times. */
    record Started(RunningDaemon daemon, long jvmPid, double acceptMs, double servingMs) {}

    private DaemonStartup() {}

    /**
     * @param launch  a launcher script (anything not ending in .jar) or a jar
     * @param jvmOpts JVM options when {@code launch} is a jar
     */
    static DaemonSpec spec(String launch, List<String> jvmOpts, Path root, Path logDir, String token) {
        DaemonSpec spec;
        if (launch.endsWith(".jar")) {
            spec = DaemonSpec.jar(Path.of(launch)).withJvmOptions(jvmOpts);
        } else {
            spec = DaemonSpec.launcherScript(Path.of(launch));
            Path java = launcherJava();
            if (java != null) {
                spec = spec.withJava(java);
            }
        }
        // Users drive the daemon (and the launcher) through SANDBOXD_* variables: they stay.
        spec = spec.withInheritedSandboxdEnv(true)
                .withRootDir(root)
                .withLogs(logDir, "daemon")
                .withReadyTimeout(READY_TIMEOUT);
        return token == null ? spec : spec.withAuthToken(token);
    }

    /**
     * The java the launcher would pick by itself ({@code $JAVA_HOME/bin/java}, else {@code java}
     * on PATH): the launcher is given a JAVA_HOME, and it must be the one it runs with when deployed.
     */
    private static Path launcherJava() {
        String home = System.getenv("JAVA_HOME");
        if (home != null && !home.isEmpty()) {
            return Path.of(home, "bin", "java");
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path java = Path.of(dir.isEmpty() ? "." : dir, "java");
            if (Files.isExecutable(java)) {
                return java;
            }
        }
        return null;
    }

    /** Starts the daemon; ready means {@code /v1/health} 200 (testkit) and a gRPC answer (here). */
    static Started start(DaemonSpec spec, String token) throws IOException {
        RunningDaemon d = spec.start();
        try (SandboxdClient c = SandboxdClient.builder()
                .grpcTarget(d.grpcTarget())
                .restBase(d.restBase())
                .token(token)
                .callTimeout(Duration.ofSeconds(2))
                .build()) {
            long deadline = d.launchedNanos() + READY_TIMEOUT.toNanos();
            while (!answers(c)) {
                Poll.sleep(1);
                if (System.nanoTime() - deadline > 0) {
                    d.killTree();
                    throw new IOException("daemon served REST but its gRPC port did not answer within "
                            + READY_TIMEOUT.toSeconds() + " s; " + d.logTail(2000));
                }
            }
            double servingMs = (System.nanoTime() - d.launchedNanos()) / 1e6;
            return new Started(d, d.jvmPid(), d.acceptingAfter().toNanos() / 1e6, servingMs);
        } catch (RuntimeException e) {
            d.killTree();
            throw e;
        }
    }

    /** A cheap call that proves the service answers: SendSignal to an id that cannot exist. */
    private static boolean answers(SandboxdClient c) {
        try {
            c.sendSignal(SendSignalRequest.newBuilder()
                    .setProcessId(Integer.MAX_VALUE)
                    .setSignal(Signal.SIGNAL_SIGTERM)
                    .build());
            return true;
        } catch (GrpcCallException e) {
            return e.code() != Status.Code.UNAVAILABLE && e.code() != Status.Code.DEADLINE_EXCEEDED;
        } catch (DaemonUnreachableException e) {
            return false;
        }
    }

    /** The daemon JVM's options (from its command line), minus the app-specific archive flags. */
    public static List<String> jvmOptionsForTrivialProgram(List<String> cmdline) {
        List<String> opts = new ArrayList<>();
        for (int i = 1; i < cmdline.size(); i++) {
            String a = cmdline.get(i);
            if (a.equals("-jar")
                    || a.equals("-cp")
                    || a.equals("-classpath")
                    || a.equals("--class-path")
                    || !a.startsWith("-")) {
                break;
            }
            if (a.startsWith("-XX:SharedArchiveFile")
                    || a.startsWith("-XX:AOTCache")
                    || a.startsWith("-XX:AOTMode")
                    || a.startsWith("-XX:ArchiveClassesAtExit")
                    || a.startsWith("-XX:AOTCacheOutput")
                    || a.startsWith("-XX:+AutoCreateSharedArchive")
                    || a.startsWith("-Dsandboxd.")) {
                continue;
            }
            opts.add(a);
        }
        return opts;
    }

    /** exec→exit ms of a trivial Java program with the given JVM options, {@code n} runs after {@code warmup}. */
    public static double[] trivialJava(String java, List<String> opts, int warmup, int n)
            throws IOException, InterruptedException {
        String cp;
        try {
            cp = Path.of(TrivialMain.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(opts);
        cmd.addAll(List.of("-cp", cp, TrivialMain.class.getName()));
        double[] out = new double[n];
        for (int i = -warmup; i < n; i++) {
            long t = System.nanoTime();
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            int rc = p.waitFor();
            double ms = (System.nanoTime() - t) / 1e6;
            if (rc != 0) {
                throw new IOException("trivial Java program failed (exit " + rc + "): " + cmd);
            }
            if (i >= 0) {
                out[i] = ms;
            }
        }
        return out;
    }
}
