package io.sandboxd.reliability.soak;

import io.sandboxd.api.GoDuration;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The soak tool: {@code java -jar sandboxd-soak.jar --grpc H:P --rest http://H:P --duration 10m
 * --daemon-pid PID}, or {@code --start-daemon daemon/target/sandboxd.jar} to launch the daemon
 * itself. Exit code 0 = no wrong answer and resources back to baseline; 1 = failed; 2 = usage.
 */
@Command(
        name = "sandboxd-soak",
        mixinStandardHelpOptions = true,
        description = "Mixed-load soak of a sandboxd daemon; checks every answer and the daemon's resources.")
public final class SoakMain implements Callable<Integer> {

    @Option(names = "--grpc", description = "gRPC target HOST:PORT (not with --start-daemon).")
    String grpc;

    @Option(names = "--rest", description = "REST base URL, e.g. http://127.0.0.1:8080 (not with --start-daemon).")
    String rest;

    @Option(names = "--daemon-pid", description = "Pid of the daemon, for /proc resource checks (same machine).")
    Long daemonPid;

    @Option(
            names = "--start-daemon",
            paramLabel = "JAR",
            description = "Launch this daemon jar on free loopback ports with a temporary root.")
    Path startDaemon;

    @Option(
            names = "--daemon-java-opts",
            defaultValue = "-Xmx256m",
            description = "JVM options for --start-daemon (default ${DEFAULT-VALUE}).")
    String daemonJavaOpts;

    @Option(
            names = "--duration",
            defaultValue = "10m",
            description = "Length of the load after warm-up (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--warmup", description = "Warm-up before the baseline (default duration/6, between 5s and 30s).")
    String warmup;

    @Option(names = "--clients", defaultValue = "16", description = "Concurrent clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--token", description = "Bearer token, if the daemon requires one (or env SANDBOXD_AUTH_TOKEN).")
    String token;

    @Option(names = "--seed", description = "Random seed, to replay a run.")
    Long seed;

    @Option(names = "--report", description = "Also write the report as JSON to this file.")
    Path report;

    public static void main(String[] args) {
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            // Idle client connections close soon after the load, so daemon fds can return to baseline.
            System.setProperty("jdk.httpclient.keepalive.timeout", "2");
        }
        System.exit(new CommandLine(new SoakMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Duration load = GoDuration.parse(duration);
        Optional<String> tok =
                Optional.ofNullable(token).or(() -> Optional.ofNullable(System.getenv("SANDBOXD_AUTH_TOKEN")));
        RunningDaemon daemon = null;
        try {
            String grpcTarget = grpc;
            String restBase = rest;
            Optional<Long> pid = Optional.ofNullable(daemonPid);
            if (startDaemon != null) {
                // A temporary root (deleted at the end), logs kept next to it; the daemon gets this
                // shell's SANDBOXD_* variables, and the token.
                Path logs = Files.createTempDirectory("sandboxd-soak-");
                DaemonSpec spec = DaemonSpec.jar(startDaemon)
                        .withInheritedSandboxdEnv(true)
                        .withLogs(logs, "daemon")
                        .withJvmOptions(Arrays.stream(daemonJavaOpts.trim().split("\\s+"))
                                .filter(o -> !o.isEmpty())
                                .toList());
                if (tok.isPresent()) {
                    spec = spec.withAuthToken(tok.get());
                }
                daemon = spec.start();
                grpcTarget = daemon.grpcTarget();
                restBase = daemon.restBase();
                pid = Optional.of(daemon.jvmPid());
                System.out.printf(
                        "started daemon pid %d: grpc %s, rest %s, root %s, logs %s, %s%n",
                        daemon.pid(), grpcTarget, restBase, daemon.rootDir(), daemon.stdoutLog(), daemon.stderrLog());
            } else if (grpc == null || rest == null) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "give --grpc and --rest (and --daemon-pid), or --start-daemon JAR");
            }
            SoakSettings settings =
                    SoakSettings.of(grpcTarget, restBase, pid, load, clients).withToken(tok);
            if (warmup != null) {
                settings = settings.withWarmup(GoDuration.parse(warmup));
            }
            if (seed != null) {
                settings = settings.withSeed(seed);
            }
            System.out.println("seed: " + settings.seed());
            SoakReport result = new SoakRun(settings, System.out).run();
            boolean ok = result.passed();
            String text = result.render();
            if (daemon != null) {
                List<ProcStat> left = daemon.observer().descendants();
                int exit = daemon.stop(Duration.ofSeconds(30));
                text += "daemon stop: exit code " + exit + ", children before stop " + left.size() + "\n";
                ok &= exit == 0;
            }
            System.out.print(text);
            if (report != null) {
                Files.writeString(report, result.toJson(), StandardCharsets.UTF_8);
            }
            return ok ? 0 : 1;
        } finally {
            if (daemon != null) {
                daemon.killTree();
                daemon.close();
            }
        }
    }
}
