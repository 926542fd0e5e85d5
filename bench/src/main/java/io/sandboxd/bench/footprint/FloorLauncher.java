package io.sandboxd.bench.footprint;

import io.sandboxd.client.Command;
import io.sandboxd.client.RemoteProcess;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts the framework floors as {@code ./sandboxd} starts the daemon: the same java, the JVM
 * options of {@code daemon/jvm.options}, and a static AppCDS archive per floor dumped from the
 * class list of a training run (health, and Execute and Start where the floor speaks gRPC, then
 * SIGTERM), written back to disk before use (the launcher's {@code sync}: dirty page-cache pages
 * of a fresh archive would count as every mapping JVM's Private_Dirty). JDK 17-24 only ({@code
 * -XX:DumpLoadedClassList}, then {@code -Xshare:dump}); JDK 25's AOT cache is not done here.
 */
final class FloorLauncher {
    private final Path java;
    private final Path jar;
    private final List<String> daemonOptions;
    private final Map<Floor, Path> archives = new EnumMap<>(Floor.class);

    FloorLauncher(Path java, Path jar, Path jvmOptionsFile) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("floors jar not found: " + jar + " (./mvnw -pl bench -am -DskipTests package)");
        }
        this.java = java;
        this.jar = jar;
        this.daemonOptions = readOptions(Files.readString(jvmOptionsFile));
    }

    /** The launcher's reading of jvm.options: {@code #} starts a comment, options split on whitespace. */
    static List<String> readOptions(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            int hash = line.indexOf('#');
            String code = hash < 0 ? line : line.substring(0, hash);
            Arrays.stream(code.trim().split("\\s+")).filter(w -> !w.isEmpty()).forEach(out::add);
        }
        return out;
    }

    /** The floor's start: its archive (once {@link #record recorded}), the daemon's options, then {@code extra}. */
    DaemonSpec spec(Floor f, List<String> extra) {
        List<String> opts = new ArrayList<>(daemonOptions);
        opts.addAll(f.jvmOptions());
        Path archive = archives.get(f);
        if (archive != null) {
            opts.add("-XX:SharedArchiveFile=" + archive);
        }
        opts.addAll(extra);
        return DaemonSpec.mainClass(jar.toString(), f.mainClass)
                .withJava(java)
                .withJvmOptions(opts)
                .withReadyTimeout(Duration.ofSeconds(60));
    }

    /** The training run that records {@code f}'s archive into {@code dir}; later {@link #spec}s use it. */
    void record(Floor f, Path dir) throws IOException, InterruptedException {
        Path archive = dir.resolve(f.cliName() + ".jsa");
        Path tmp = dir.resolve(f.cliName() + ".jsa.tmp");
        Path classes = dir.resolve(f.cliName() + ".classlist");
        RunningDaemon d = spec(f, List.of("-XX:DumpLoadedClassList=" + classes))
                .withLogs(dir, "train-" + f.cliName())
                .start();
        try {
            if (f.speaksGrpc) {
                try (SandboxdClient c = SandboxdClient.builder()
                        .grpcTarget(d.grpcTarget())
                        .callTimeout(Duration.ofSeconds(10))
                        .build()) {
                    c.execute("/bin/true");
                    RemoteProcess p = c.start(Command.of("/bin/true"));
                    p.awaitInit(Duration.ofSeconds(10));
                    p.cancel();
                }
            }
        } finally {
            d.stop(Duration.ofSeconds(30)); // SIGTERM: the class list is complete at exit
        }
        if (!Files.isRegularFile(classes) || Files.size(classes) == 0) {
            throw new IOException("the training run of " + f.cliName() + " wrote no class list; " + d.logTail(2000));
        }
        dump(f, classes, tmp, dir);
        if (!Files.isRegularFile(tmp) || Files.size(tmp) == 0) {
            throw new IOException("the static dump of " + f.cliName() + " wrote no archive");
        }
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        archives.put(f, archive);
    }

    /** {@code -Xshare:dump} of {@code classes} into {@code out}, with the options and class path the floor runs with. */
    private void dump(Floor f, Path classes, Path out, Path dir) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(daemonOptions);
        cmd.addAll(f.jvmOptions());
        cmd.add("-Xshare:dump");
        cmd.add("-XX:SharedClassListFile=" + classes);
        cmd.add("-XX:SharedArchiveFile=" + out);
        cmd.add("-cp");
        cmd.add(jar.toString());
        Path log = dir.resolve("dump-" + f.cliName() + ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new IOException("the static dump of " + f.cliName() + " took over 180 s; see " + log);
        }
        if (p.exitValue() != 0) {
            throw new IOException("the static dump of " + f.cliName() + " exited " + p.exitValue() + "; see " + log);
        }
    }
}
