package io.sandboxd.client.cli;

import static io.sandboxd.client.cli.CliProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import io.sandboxd.testkit.proc.ProcStat;
import io.sandboxd.testkit.proc.ProcessTable;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code sandboxd-cli exec} as a real process against the packaged daemon. */
class CliExecIT {
    static RunningDaemon daemon;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("cli-exec");
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    static CliProcess exec(String... command) {
        String[] args = new String[command.length + 2];
        args[0] = "exec";
        args[1] = "--";
        System.arraycopy(command, 0, args, 2, command.length);
        return cli(args).env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget()).env("SANDBOXD_REST_ADDR", daemon.restBase());
    }

    @Test
    void exitsWithTheProcessesExitCode() throws Exception {
        assertThat(exec("true").run().exitCode()).isZero();
        CliProcess.Result r = exec("sh", "-c", "echo out; echo err >&2; exit 7").run();
        assertThat(r.exitCode()).isEqualTo(7);
        assertThat(r.stdout()).isEqualTo("out\n");
        assertThat(r.stderr()).isEqualTo("err\n");
    }

    @Test
    void deathBySignalNExitsWith128PlusN() throws Exception {
        assertThat(exec("sh", "-c", "kill -TERM $$").run().exitCode()).isEqualTo(143);
        assertThat(exec("sh", "-c", "kill -KILL $$").run().exitCode()).isEqualTo(137);
    }

    @Test
    void forwardsStdinAndItsEof() throws Exception {
        CliProcess.Result r = exec("cat").stdin("line one\nline two\n").run();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEqualTo("line one\nline two\n");
        // The EOF reaches the process: the shell goes on after cat and exits with its own code.
        CliProcess.Result after =
                exec("sh", "-c", "wc -c; echo after-eof; exit 4").stdin("12345").run();
        assertThat(after.stdout().strip()).isEqualTo("5\nafter-eof");
        assertThat(after.exitCode()).isEqualTo(4);
        assertThat(exec("cat").run().stdout()).as("empty stdin: immediate EOF").isEmpty();
    }

    @Test
    void passesEnvAndCwdAndTakesArgumentsAsGiven() throws Exception {
        Files.createDirectories(daemon.rootDir().resolve("cwd-test"));
        CliProcess.Result r = cli(
                        "exec",
                        "--env",
                        "A=1",
                        "--env",
                        "B=two words",
                        "--cwd",
                        "cwd-test",
                        "--",
                        "sh",
                        "-c",
                        "echo \"$A|$B|$(basename \"$PWD\")|$0\"",
                        "arg zero")
                .env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget())
                .run();
        assertThat(r.stdout()).isEqualTo("1|two words|cwd-test|arg zero\n");
        // Options after the command belong to the command.
        assertThat(exec("echo", "--tty", "-x").run().stdout()).isEqualTo("--tty -x\n");
    }

    @Test
    void sigintIsForwardedToTheRemoteProcess() throws Exception {
        // The remote shell traps INT and exits 42: only a forwarded SIGINT gives that exit code
        // (a CLI that died of its own SIGINT would exit 130 and the shell would never print).
        Process p = exec("sh", "-c", "trap 'echo got-int; exit 42' INT; echo ready; while :; do sleep 0.1; done")
                .start();
        try {
            var err = CliProcess.drain(p.getErrorStream());
            InputStream out = p.getInputStream();
            assertThat(new String(out.readNBytes(6))).isEqualTo("ready\n");
            kill("INT", p.pid());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(42);
            assertThat(new String(out.readAllBytes())).isEqualTo("got-int\n");
            assertThat(new String(err.get(10, TimeUnit.SECONDS))).isEmpty();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aSleepEndedBySigintExits130() throws Exception {
        String marker = "100.1" + (System.nanoTime() % 100000);
        Process p = exec("sleep", marker).start();
        try {
            awaitRemote(marker);
            long t = System.nanoTime();
            kill("INT", p.pid());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(130);
            assertThat(Duration.ofNanos(System.nanoTime() - t)).isLessThan(Duration.ofSeconds(10));
            assertThat(new String(p.getErrorStream().readAllBytes())).isEmpty();
            Poll.await(Duration.ofSeconds(10), () -> remote(marker).isEmpty(), () -> "sleep left");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void sigtermIsForwardedToTheRemoteProcess() throws Exception {
        Process p = exec("sh", "-c", "trap 'exit 43' TERM; echo ready; while :; do sleep 0.1; done")
                .start();
        try {
            CliProcess.drain(p.getErrorStream());
            assertThat(new String(p.getInputStream().readNBytes(6))).isEqualTo("ready\n");
            kill("TERM", p.pid());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(43);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aSecondSigintGivesUpOnAProcessThatIgnoresTheFirst() throws Exception {
        String marker = "100.3" + (System.nanoTime() % 100000);
        Process p = exec("sh", "-c", "trap '' INT; sleep " + marker).start();
        try {
            awaitRemote(marker);
            kill("INT", p.pid());
            assertThat(p.waitFor(2, TimeUnit.SECONDS))
                    .as("the first SIGINT is ignored remotely")
                    .isFalse();
            kill("INT", p.pid());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(130);
            Poll.await(
                    Duration.ofSeconds(10),
                    () -> remote(marker).isEmpty(),
                    () -> "the cancelled stream's process group is killed by the daemon");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aClosedStdoutEndsTheCliLikeSigpipeAndTheRemoteProcess() throws Exception {
        String marker = "y" + System.nanoTime();
        Process p = exec("yes", marker).start();
        try {
            InputStream out = p.getInputStream();
            assertThat(new String(out.readNBytes(marker.length() + 1))).isEqualTo(marker + "\n");
            out.close();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(141);
            Poll.await(Duration.ofSeconds(10), () -> remote(marker).isEmpty(), () -> "yes left");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void streamsLargeOutputThroughASmallHeap() throws Exception {
        long n = 512L << 20;
        Process p =
                exec("head", "-c", Long.toString(n), "/dev/zero").jvm("-Xmx64m").start();
        try {
            CliProcess.drain(p.getErrorStream());
            long got = 0;
            byte[] buf = new byte[1 << 16];
            InputStream out = p.getInputStream();
            for (int r; (r = out.read(buf)) > 0; ) {
                got += r;
            }
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(got).isEqualTo(n);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void grpcErrorsAreOneLineAndExit1() throws Exception {
        CliProcess.Result r = exec("no-such-binary-5150").run();
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr())
                .isEqualTo("sandboxd-cli: exec: executable \"no-such-binary-5150\" not found in PATH (NOT_FOUND)\n");
        CliProcess.Result cwd = cli("exec", "--cwd", "no/such/dir", "--", "true")
                .env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget())
                .run();
        assertThat(cwd.exitCode()).isEqualTo(1);
        assertThat(cwd.stderr())
                .startsWith("sandboxd-cli: exec: ")
                .contains("no/such/dir")
                .endsWith("(NOT_FOUND)\n");
    }

    private static void awaitRemote(String marker) {
        // A CLI JVM costs ~1.5 s of CPU to get there; at a load average of 17 on 2 cores that took
        // over 30 s once.
        Poll.await(
                Duration.ofSeconds(90),
                () -> !remote(marker).isEmpty(),
                () -> "the remote process never started: " + daemon.observer().descendants());
    }

    /** The daemon's live descendants with {@code marker} as an argument (the CLI has it too: not those). */
    static List<ProcStat> remote(RunningDaemon d, String marker) {
        ProcessTable t = ProcessTable.read();
        java.util.Set<Long> mine = new java.util.HashSet<>();
        t.descendantsOf(d.pid()).forEach(s -> mine.add(s.pid()));
        return t.liveWithArgument(marker).stream()
                .filter(s -> mine.contains(s.pid()))
                .toList();
    }

    private static List<ProcStat> remote(String marker) {
        return remote(daemon, marker);
    }

    /**
     * Sends {@code signal} to the CLI. A CLI started by a test run that ignores SIGINT inherits
     * that (the JVM keeps an ignored SIGINT ignored, as nohup intends), so the SIGINT cases first
     * check this run does not: a background job of a non-interactive shell does.
     */
    static void kill(String signal, long pid) throws Exception {
        if (signal.equals("INT")) {
            assertThat(ignoredSignals() & (1L << 1))
                    .as("this test run ignores SIGINT, and the CLI under test would inherit that: start the"
                            + " build in the foreground, or from a shell with job control (set -m)")
                    .isZero();
        }
        assertThat(new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
                        .start()
                        .waitFor())
                .isZero();
    }

    /** This process's ignored signals: bit n-1 for signal n ({@code SigIgn} of /proc/self/status). */
    private static long ignoredSignals() throws Exception {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:"))
                return Long.parseUnsignedLong(line.substring(7).trim(), 16);
        }
        throw new IllegalStateException("no SigIgn line in /proc/self/status");
    }
}
