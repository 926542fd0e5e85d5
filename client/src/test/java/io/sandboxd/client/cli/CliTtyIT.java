package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import com.pty4j.WinSize;
import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code exec --tty} with the CLI on a real pseudo-terminal (pty4j), as in an interactive shell. */
class CliTtyIT {
    static RunningDaemon daemon;

    @BeforeAll
    static void start() throws Exception {
        daemon = TestDaemons.start("cli-tty");
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    /** A process on a new pty, its output collected as it comes. */
    static final class OnPty implements AutoCloseable {
        final PtyProcess p;
        final StringBuffer out = new StringBuffer();

        OnPty(int cols, int rows, List<String> command) throws IOException {
            Map<String, String> env = new HashMap<>(System.getenv());
            env.keySet().removeIf(k -> k.startsWith("SANDBOXD_"));
            env.put("TERM", "xterm");
            p = new PtyProcessBuilder(command.toArray(new String[0]))
                    .setEnvironment(env)
                    .setInitialColumns(cols)
                    .setInitialRows(rows)
                    .setRedirectErrorStream(true)
                    .start();
            Thread t = new Thread(
                    () -> {
                        byte[] buf = new byte[4096];
                        InputStream in = p.getInputStream();
                        try {
                            for (int n; (n = in.read(buf)) > 0; ) {
                                out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                            }
                        } catch (IOException e) {
                            // the pty closed
                        }
                    },
                    "pty-reader");
            t.setDaemon(true);
            t.start();
        }

        void await(String text) {
            Poll.await(
                    Duration.ofSeconds(30), () -> out.toString().contains(text), () -> "no \"" + text + "\" in " + out);
        }

        void type(String s) throws IOException {
            p.getOutputStream().write(s.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
        }

        int exit() throws InterruptedException {
            assertThat(p.waitFor(30, TimeUnit.SECONDS))
                    .as("exited; output: " + out)
                    .isTrue();
            return p.exitValue();
        }

        @Override
        public void close() {
            p.destroyForcibly();
        }
    }

    static List<String> cliExecTty(String... command) {
        List<String> c = new ArrayList<>(List.of(
                CliProcess.java(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                CliProcess.jar().toString(),
                "exec",
                "--tty",
                "--grpc",
                daemon.grpcTarget(),
                "--"));
        c.addAll(List.of(command));
        return c;
    }

    static String shellQuote(List<String> argv) {
        StringBuilder sb = new StringBuilder();
        for (String a : argv) {
            sb.append('\'').append(a.replace("'", "'\\''")).append("' ");
        }
        return sb.toString();
    }

    @Test
    void theRemoteTerminalHasTheLocalSize() throws Exception {
        try (OnPty t = new OnPty(123, 45, cliExecTty("stty", "size"))) {
            assertThat(t.exit()).isZero();
            assertThat(t.out.toString()).contains("45 123");
        }
    }

    @Test
    void theLocalTerminalIsRawMeanwhileAndRestoredAfterwardsAndCtrlCReachesTheRemoteProcess() throws Exception {
        String cli = shellQuote(cliExecTty("sh", "-c", "echo ready; exec sleep 60"));
        try (OnPty t = new OnPty(
                80,
                24,
                List.of(
                        "sh",
                        "-c",
                        "stty sane; stty -a; echo before-cli; " + cli + "; echo cli-exit=$?; stty -a; echo done"))) {
            t.await("ready");
            Path slave = Files.readSymbolicLink(Path.of("/proc", Long.toString(t.p.pid()), "fd", "0"));
            assertThat(slave.toString()).startsWith("/dev/pts/");
            String during = stty(slave);
            assertThat(during).containsPattern("(^|\\s)-icanon(\\s|$)").containsPattern("(^|\\s)-echo(\\s|$)");
            t.type("\u0003");
            t.await("done");
            assertThat(t.exit()).isZero();
            String all = t.out.toString();
            assertThat(all).contains("cli-exit=130");
            String after = all.substring(all.indexOf("cli-exit=130"));
            assertThat(after).containsPattern("(^|\\s)icanon(\\s|$)").containsPattern("(^|\\s)echo(\\s|$)");
            String before = all.substring(0, all.indexOf("before-cli"));
            assertThat(modes(after)).isEqualTo(modes(before));
        }
    }

    @Test
    void aLocalResizeReachesTheRemoteTerminal() throws Exception {
        try (OnPty t = new OnPty(
                80,
                24,
                cliExecTty(
                        "sh",
                        "-c",
                        "trap 'stty size' WINCH; echo ready; i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done"))) {
            t.await("ready");
            t.p.setWinSize(new WinSize(100, 30));
            t.await("30 100");
            t.p.setWinSize(new WinSize(132, 50));
            t.await("50 132");
            t.type("\u0003");
            assertThat(t.exit()).isEqualTo(130);
        }
    }

    @Test
    void withoutALocalTerminalTheRemoteStillGetsOne() throws Exception {
        CliProcess.Result r = CliProcess.cli(
                        "exec",
                        "--tty",
                        "--grpc",
                        daemon.grpcTarget(),
                        "--",
                        "sh",
                        "-c",
                        "test -t 0 && test -t 1 && echo remote-tty; stty size")
                .run();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).startsWith("remote-tty\r\n").matches("(?s)remote-tty\r\n\\d+ \\d+\r\n");
    }

    private static String stty(Path tty) throws Exception {
        Process p = new ProcessBuilder("stty", "-F", tty.toString(), "-a")
                .redirectErrorStream(true)
                .start();
        String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(s).isZero();
        return s;
    }

    /** The on/off words of {@code stty -a} (icanon, -echo, …), for comparing two outputs. */
    private static List<String> modes(String sttyA) {
        List<String> words = new ArrayList<>();
        for (String w : sttyA.split("\\s+")) {
            String bare = w.startsWith("-") ? w.substring(1) : w;
            if (bare.matches("(icanon|echo|isig|icrnl|opost|onlcr|iexten|echoe|echok|ixon)") && !words.contains(w)) {
                words.add(w);
            }
        }
        return words;
    }
}
