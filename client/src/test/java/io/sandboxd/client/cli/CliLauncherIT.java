package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStat;
import io.sandboxd.testkit.proc.ProcessObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ./sandboxd-cli} launcher script: class-data archive on first run, exec'd JVM. */
class CliLauncherIT {
    @TempDir
    Path tmp;

    private ProcessBuilder launcher(Path archive, String... args) {
        List<String> cmd = new java.util.ArrayList<>(
                List.of(DaemonSpec.repoRoot().resolve("sandboxd-cli").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("SANDBOXD_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SANDBOXD_REBUILD", "never");
        pb.environment().put("SANDBOXD_CDS_ARCHIVE", archive.toString());
        return pb;
    }

    private static String[] run(ProcessBuilder pb) throws Exception {
        Process p = pb.start();
        p.getOutputStream().close();
        var out = CliProcess.drain(p.getInputStream());
        var err = CliProcess.drain(p.getErrorStream());
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).isTrue();
        return new String[] {
            Integer.toString(p.exitValue()),
            new String(out.get(), StandardCharsets.UTF_8),
            new String(err.get(), StandardCharsets.UTF_8)
        };
    }

    @Test
    void theFirstRunRecordsAnArchiveThatLaterRunsMap() throws Exception {
        Path archive = tmp.resolve("cli.archive");
        String[] first = run(launcher(archive, "--version"));
        assertThat(first[0]).isEqualTo("0");
        assertThat(first[1]).startsWith("sandboxd-cli ");
        assertThat(first[2]).contains("recording the class-data archive");
        assertThat(archive).isRegularFile();
        assertThat(Files.size(archive)).isGreaterThan(1 << 20);
        String[] second = run(launcher(archive, "--version"));
        assertThat(second[0]).isEqualTo("0");
        assertThat(second[1]).isEqualTo(first[1]);
        assertThat(second[2]).as("no recording, no CDS warnings").isEmpty();
    }

    @Test
    void theLauncherExecsTheJvmSoSignalsReachTheCli() throws Exception {
        try (RunningDaemon daemon = TestDaemons.start("cli-launcher")) {
            Path archive = tmp.resolve("cli2.archive");
            run(launcher(archive, "--version"));
            ProcessBuilder pb = launcher(
                    archive,
                    "exec",
                    "--grpc",
                    daemon.grpcTarget(),
                    "--",
                    "sh",
                    "-c",
                    "trap 'exit 42' INT; echo ready; while :; do sleep 0.1; done");
            Process p = pb.start();
            try {
                CliProcess.drain(p.getErrorStream());
                assertThat(new String(p.getInputStream().readNBytes(6), StandardCharsets.UTF_8))
                        .isEqualTo("ready\n");
                ProcessObserver cli = new ProcessObserver(p.pid());
                assertThat(cli.isJvm())
                        .as("bash exec'd java: the launcher's pid is the JVM, not " + cli.cmdline())
                        .isTrue();
                assertThat(cli.cmdline())
                        .anyMatch(a -> a.contains(archive.toString()))
                        .contains("-XX:TieredStopAtLevel=1");
                CliExecIT.kill("INT", p.pid());
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue())
                        .as("the remote shell's own code: the signal was forwarded")
                        .isEqualTo(42);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void withoutAnArchiveItStillRuns() throws Exception {
        ProcessBuilder pb = launcher(tmp.resolve("never.archive"), "--version");
        pb.environment().put("SANDBOXD_CDS", "off");
        String[] r = run(pb);
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[2]).isEmpty();
        assertThat(tmp.resolve("never.archive")).doesNotExist();
        assertThat(ProcStat.read(ProcessHandle.current().pid())).isPresent();
    }
}
