package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-data archive is keyed on the jar's identity (path, size, mtime): a copied
 * checkout records its own archive once, drops the copied stale one, and then starts without any
 * archive warning, instead of warning about a mismatched archive on every start.
 */
class LauncherArchiveIT {
    @TempDir
    Path tmp;

    record Run(int exit, String stdout, String stderr) {}

    private static Path checkout(Path dir) throws IOException {
        Path repo = DaemonSpec.repoRoot();
        String jar = System.getProperty("sandboxd.jar", "target/sandboxd.jar");
        for (String[] f : new String[][] {
            {repo.resolve("sandboxd").toString(), "sandboxd"},
            {repo.resolve("daemon/jvm.options").toString(), "daemon/jvm.options"},
            {Path.of(jar).toAbsolutePath().toString(), "daemon/target/sandboxd.jar"}
        }) {
            Path to = dir.resolve(f[1]);
            Files.createDirectories(to.getParent());
            Files.copy(Path.of(f[0]), to, StandardCopyOption.COPY_ATTRIBUTES);
        }
        return dir;
    }

    /** {@code cp -a}: every file with its mtime, the archive included. */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static Run version(Path checkout) throws Exception {
        return version(checkout, Path.of(System.getProperty("java.home")));
    }

    private static Run version(Path checkout, Path javaHome) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(checkout.resolve("sandboxd").toString(), "--version");
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("SANDBOXD_REBUILD", "never");
        pb.environment().remove("SANDBOXD_CDS");
        pb.environment().remove("SANDBOXD_CDS_ARCHIVE");
        Path out = Files.createTempFile(checkout, "out", ".txt");
        Path err = Files.createTempFile(checkout, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("launcher exited").isTrue();
        Run r = new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private static List<String> archives(Path checkout) throws IOException {
        try (Stream<Path> s = Files.list(checkout.resolve("daemon/target"))) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".jsa") || n.endsWith(".aot") || n.endsWith(".failed"))
                    .toList();
        }
    }

    /** Dirty kB of the file's pages in the page cache: mapped here, read in full, summed from smaps. */
    private static long dirtyKb(Path file) throws IOException {
        String path = file.toRealPath().toString();
        try (FileChannel ch = FileChannel.open(file)) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            m.load();
            long kb = 0;
            boolean inFile = false;
            for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
                if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) { // a mapping's header line
                    inFile = line.endsWith(" " + path);
                } else if (inFile && (line.startsWith("Private_Dirty:") || line.startsWith("Shared_Dirty:"))) {
                    kb += Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            assertThat(m.capacity()).isPositive(); // keeps the mapping reachable until here
            return kb;
        }
    }

    @Test
    void aCopiedCheckoutRecordsItsOwnArchiveOnceAndThenStartsCleanly() throws Exception {
        Path a = checkout(tmp.resolve("a"));
        Run first = version(a);
        assertThat(first.exit()).as(first.stderr()).isZero();
        assertThat(first.stderr()).contains("recording the class-data archive");
        List<String> archiveA = archives(a);
        assertThat(archiveA).singleElement().asString().doesNotEndWith(".failed");
        assertThat(dirtyKb(a.resolve("daemon/target").resolve(archiveA.get(0))))
                .as("the new archive was written back before use: its pages in the page cache are"
                        + " clean, or every daemon mapping it meanwhile counts them as Private_Dirty")
                .isZero();
        Run again = version(a);
        assertThat(again.exit()).isZero();
        assertThat(again.stderr())
                .as("a second start: no recording, no archive warning")
                .isEmpty();
        assertThat(again.stdout()).startsWith("sandboxd, version ");

        Path b = tmp.resolve("b");
        copyTree(a, b);
        Run copied = version(b);
        assertThat(copied.exit()).as(copied.stderr()).isZero();
        assertThat(copied.stderr()).contains("recording the class-data archive");
        assertThat(archives(b)).singleElement().isNotEqualTo(archiveA.get(0));
        Run copiedAgain = version(b);
        assertThat(copiedAgain.stderr()).as("the copy's second start").isEmpty();
    }

    /**
     * A training daemon can lose its port to another process between the launcher's pick and its
     * bind, and exits. The launcher then tries again on other ports instead of marking the jar as
     * failed for good, and it picks its ports below the kernel's ephemeral range, where outgoing
     * connections take theirs. Here a JDK whose java exits at once on its first training run plays
     * that daemon.
     */
    @Test
    void aTrainingDaemonThatDoesNotComeUpIsTriedAgainOnPortsBelowTheEphemeralRange() throws Exception {
        Path realHome = Path.of(System.getProperty("java.home"));
        Path jdk = Files.createDirectories(tmp.resolve("jdk/bin"));
        Files.copy(realHome.resolve("release"), tmp.resolve("jdk/release"));
        Path calls = tmp.resolve("training-runs.txt");
        Path failedOnce = tmp.resolve("failed-once");
        Path java = jdk.resolve("java");
        Files.writeString(
                java,
                String.join(
                        "\n",
                        "#!/usr/bin/env bash",
                        "case \" $* \" in",
                        "  *' -XX:DumpLoadedClassList='*|*' -XX:AOTCacheOutput='*)",
                        "    echo \"$*\" >> '" + calls + "'",
                        "    [[ -e '" + failedOnce + "' ]] || { : > '" + failedOnce + "'; exit 1; } ;;",
                        "esac",
                        "exec '" + realHome.resolve("bin/java") + "' \"$@\"",
                        ""));
        assertThat(java.toFile().setExecutable(true)).isTrue();

        Path a = checkout(tmp.resolve("a"));
        Run first = version(a, jdk.getParent());
        assertThat(first.exit()).as(first.stderr()).isZero();
        assertThat(first.stderr()).doesNotContain("could not record");
        assertThat(archives(a)).singleElement().asString().doesNotEndWith(".failed");

        List<String> runs = Files.readAllLines(calls);
        assertThat(runs).as("the failed training run and the one after it").hasSize(2);
        // readAllLines, not readString: readString read this sysctl file as "3" (one byte, then EOF).
        int ephemeralLow = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .get(0)
                .split("\\s+")[0]);
        for (String run : runs) {
            for (String flag : List.of("--grpc-port", "--rest-port")) {
                Matcher m = Pattern.compile(flag + " (\\d+)").matcher(run);
                assertThat(m.find()).as(flag + " in " + run).isTrue();
                assertThat(Integer.parseInt(m.group(1)))
                        .as(flag + " below the ephemeral range")
                        .isBetween(1024, ephemeralLow - 1);
            }
        }
    }
}
