package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.Poll;
import io.sandboxd.testkit.RunningDaemon;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code run --detach}, {@code attach}, {@code ps}, {@code wait}, {@code kill} as real processes against the daemon. */
class CliDurableIT {
    static RunningDaemon daemon;
    static final JsonMapper JSON = JsonMapper.builder().build();

    @BeforeAll
    static void start() throws Exception {
        String state = Files.createTempDirectory("cli-durable-state").toString();
        daemon = TestDaemons.start("cli-durable", s -> s.withArgs("--state-dir", state, "--timeout-grace", "1s"));
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    static CliProcess cli(String... args) {
        return CliProcess.cli(args)
                .env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget())
                .env("SANDBOXD_REST_ADDR", daemon.restBase());
    }

    static String runDetached(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("run", "--detach"));
        a.addAll(List.of(args));
        CliProcess.Result r = cli(a.toArray(String[]::new)).run();
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).matches("[0-9]+\n");
        assertThat(r.stderr()).isEmpty();
        return r.stdout().strip();
    }

    static CliProcess.Result ok(CliProcess.Result r) {
        assertThat(r.exitCode()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void runDetachPrintsTheIdAndReturnsAtOnceWhileTheProcessRuns() throws Exception {
        long t0 = System.nanoTime();
        String id = runDetached("--tag", "cli-sleeper", "--", "sleep", "100");
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
                .as("returns at once")
                .isLessThan(Duration.ofSeconds(20));
        try {
            String ps = ok(cli("ps").run()).stdout();
            assertThat(ps.lines().filter(l -> l.startsWith(id + " ")))
                    .singleElement()
                    .satisfies(l -> {
                        assertThat(l)
                                .contains("cli-sleeper")
                                .contains("running")
                                .contains("sleep 100");
                    });
            JsonNode all = JSON.readTree(ok(cli("ps", "--json").run()).stdout());
            JsonNode mine = null;
            for (JsonNode p : all.get("processes")) {
                if (p.get("id").asInt() == Integer.parseInt(id)) {
                    mine = p;
                }
            }
            assertThat(mine).isNotNull();
            assertThat(mine.get("tag").asString()).isEqualTo("cli-sleeper");
            assertThat(mine.get("state").asString()).isEqualTo("running");
            assertThat(mine.get("pid").asLong()).isPositive();
            assertThat(mine.get("command").get(1).asString()).isEqualTo("100");
        } finally {
            ok(cli("kill", "--tag", "cli-sleeper", "--signal", "KILL").run());
        }
        assertThat(cli("wait", id).run().exitCode()).isEqualTo(137);
        assertThat(ok(cli("ps").run()).stdout()).doesNotContain("cli-sleeper");
        assertThat(ok(cli("ps", "--all").run()).stdout()).contains("cli-sleeper");
    }

    @Test
    void attachReplaysEverythingAndExitsWithTheCode() throws Exception {
        String id =
                runDetached("--env", "A=1", "--", "sh", "-c", "echo out$A; echo err >&2; sleep 1; echo late; exit 7");
        CliProcess.Result r = cli("attach", id).run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(7);
        assertThat(r.stdout()).isEqualTo("out1\nlate\n");
        assertThat(r.stderr()).isEqualTo("err\n");
        // again, after the end, from offsets
        CliProcess.Result again = cli("attach", id, "--stdout-offset", "2", "--stderr-offset", "4")
                .run();
        assertThat(again.exitCode()).isEqualTo(7);
        assertThat(again.stdout()).isEqualTo("t1\nlate\n");
        assertThat(again.stderr()).isEmpty();
        assertThat(cli("wait", id).run().exitCode()).isEqualTo(7);
    }

    /**
     * The lossless reattach of issue 18 with a real client: {@code attach --json} is killed with
     * SIGKILL at five random points (live or replaying, whichever it is in) and started again
     * with the last offsets it printed; the pieces are 200,000 numbered lines and their stderr,
     * byte-exact, each byte once.
     */
    @Test
    void anAttachKilledWithSigkillFiveTimesResumesFromItsLastOffsetsByteExact() throws Exception {
        int n = 200_000;
        String id = runDetached(
                "--",
                "awk",
                "BEGIN { for (i = 1; i <= " + n + "; i++) { printf \"line %06d, lossless reattach\\n\", i;"
                        + " if (i % 1000 == 0) { print \"err \" i > \"/dev/stderr\"; fflush();"
                        + " system(\"sleep 0.02\") } } }");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.util.Random rnd = new java.util.Random();
        for (int kill = 0; kill < 5; kill++) {
            Process p = cli(
                            "attach",
                            "--json",
                            id,
                            "--stdout-offset",
                            "" + out.size(),
                            "--stderr-offset",
                            "" + err.size())
                    .start();
            p.getOutputStream().close();
            CliProcess.drain(p.getErrorStream());
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            // At most 3 events each: a replay of the ended process (CLI start-up is slow on a busy
            // machine) has 24 output events of 256 KiB (6.2 MB, all retained) before its exit.
            int stopAfter = 1 + rnd.nextInt(3);
            for (int got = 0; got < stopAfter; got++) {
                String line = lines.readLine(); // a whole line: the client is alive until the kill
                assertThat(line).as("attach %d ended before its kill", kill).isNotNull();
                JsonNode e = JSON.readTree(line);
                assertThat(e.get("event").asString()).as(line).isNotIn("exit", "gap");
                takeOutput(e, out, err);
            }
            new ProcessBuilder("kill", "-KILL", Long.toString(p.pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(128 + 9);
            lines.close(); // whatever it printed after the lines read is lost with it
        }
        CliProcess.Result last = cli(
                        "attach", "--json", id, "--stdout-offset", "" + out.size(), "--stderr-offset", "" + err.size())
                .run();
        assertThat(last.exitCode()).as(last.toString()).isZero();
        List<JsonNode> events = last.stdout().lines().map(JSON::readTree).toList();
        for (JsonNode e : events.subList(0, events.size() - 1)) {
            assertThat(e.get("event").asString()).as(e.toString()).isNotIn("exit", "gap");
            takeOutput(e, out, err);
        }
        assertThat(events.get(events.size() - 1).get("event").asString()).isEqualTo("exit");
        StringBuilder wantOut = new StringBuilder();
        StringBuilder wantErr = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            wantOut.append(String.format("line %06d, lossless reattach\n", i));
            if (i % 1000 == 0) {
                wantErr.append("err ").append(i).append('\n');
            }
        }
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(wantOut.toString());
        assertThat(err.toString(StandardCharsets.US_ASCII)).isEqualTo(wantErr.toString());
    }

    /** Appends an output event's bytes to its stream, checking it starts where the last one ended. */
    static void takeOutput(JsonNode e, java.io.ByteArrayOutputStream out, java.io.ByteArrayOutputStream err) {
        if (!e.get("event").asString().equals("output")) {
            return;
        }
        java.io.ByteArrayOutputStream to = e.get("stream").asString().equals("stderr") ? err : out;
        assertThat(e.get("offset").asLong()).as("every byte exactly once").isEqualTo(to.size());
        to.writeBytes(Base64.getDecoder().decode(e.get("bytes").asString()));
    }

    @Test
    void attachJsonPrintsOneParsableObjectPerEvent() throws Exception {
        runDetached("--tag", "cli-json", "--", "sh", "-c", "printf 'a\\001b'; printf e >&2; exit 3");
        CliProcess.Result r = cli("attach", "--json", "--tag", "cli-json").run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
        List<JsonNode> events = r.stdout().lines().map(JSON::readTree).toList();
        StringBuilder out = new StringBuilder();
        for (JsonNode e : events) {
            if (e.get("event").asString().equals("output")
                    && e.get("stream").asString().equals("stdout")) {
                assertThat(e.get("offset").asLong()).isEqualTo(out.length());
                out.append(
                        new String(Base64.getDecoder().decode(e.get("bytes").asString()), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(out.toString()).isEqualTo("a\001b");
        assertThat(events)
                .anyMatch(e -> e.get("event").asString().equals("output")
                        && e.get("stream").asString().equals("stderr"));
        JsonNode exit = events.get(events.size() - 1);
        assertThat(exit.get("event").asString()).isEqualTo("exit");
        assertThat(exit.get("kind").asString()).isEqualTo("exited");
        assertThat(exit.get("exit_code").asInt()).isEqualTo(3);
    }

    @Test
    void sigintDetachesAndTheProcessKeepsRunning() throws Exception {
        String id = runDetached("--", "sh", "-c", "while :; do echo tick; sleep 0.2; done");
        try {
            Process p = cli("attach", id).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("tick");
            CliExecIT.kill("INT", p.pid());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(130);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(err).contains("detached").doesNotContain("Exception");
            Poll.sleep(500);
            assertThat(ok(cli("ps").run()).stdout().lines())
                    .anyMatch(l -> l.startsWith(id + " ") && l.contains("running"));
        } finally {
            ok(cli("kill", id, "--signal", "KILL").run());
        }
        assertThat(cli("wait", id).run().exitCode()).isEqualTo(137);
    }

    @Test
    void attachStdinForwardsInputAndEof() throws Exception {
        String id = runDetached("--", "sh", "-c", "wc -c; exit 4");
        CliProcess.Result r = cli("attach", "--stdin", id).stdin("12345").run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(4);
        assertThat(r.stdout().strip()).isEqualTo("5");
    }

    @Test
    void killByDefaultTermsAndWaitSays143() throws Exception {
        String id = runDetached("--", "sleep", "100");
        ok(cli("kill", id).run());
        assertThat(cli("wait", id).run().exitCode()).isEqualTo(143);
    }

    @Test
    void aServerSideTimeoutMakesWaitAndAttachExit124() throws Exception {
        String id = runDetached("--timeout", "1s", "--", "sleep", "100");
        assertThat(cli("wait", id).run().exitCode()).isEqualTo(124);
        assertThat(cli("attach", id).run().exitCode()).isEqualTo(124);
        JsonNode all = JSON.readTree(ok(cli("ps", "--json", "--all").run()).stdout());
        assertThat(all.get("processes")
                        .valueStream()
                        .filter(p -> p.get("id").asString().equals(id)))
                .singleElement()
                .satisfies(p -> assertThat(p.get("state").asString()).isEqualTo("timed_out"));
    }

    @Test
    void failuresAreOneLineExit1AndUsageErrorsExit2() throws Exception {
        CliProcess.Result missing = cli("attach", "999999").run();
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.stderr())
                .startsWith("sandboxd-cli: attach: ")
                .contains("NOT_FOUND")
                .hasLineCount(1);
        CliProcess.Result tag = cli("wait", "--tag", "nope").run();
        assertThat(tag.exitCode()).isEqualTo(1);
        assertThat(tag.stderr())
                .startsWith("sandboxd-cli: wait: ")
                .contains("NOT_FOUND")
                .hasLineCount(1);
        CliProcess.Result kill = cli("kill", "--tag", "nope").run();
        assertThat(kill.exitCode()).isEqualTo(1);
        assertThat(kill.stderr()).startsWith("sandboxd-cli: kill: ").hasLineCount(1);

        String id = runDetached("--", "true");
        cli("wait", id).run();
        CliProcess.Result range = cli("attach", id, "--stdout-offset", "100").run();
        assertThat(range.exitCode()).isEqualTo(1);
        assertThat(range.stderr()).contains("OUT_OF_RANGE").hasLineCount(1);

        runDetached("--tag", "cli-dup", "--", "sleep", "30");
        try {
            CliProcess.Result dup =
                    cli("run", "--detach", "--tag", "cli-dup", "--", "true").run();
            assertThat(dup.exitCode()).isEqualTo(1);
            assertThat(dup.stderr())
                    .startsWith("sandboxd-cli: run: ")
                    .contains("ALREADY_EXISTS")
                    .hasLineCount(1);
        } finally {
            cli("kill", "--tag", "cli-dup", "--signal", "KILL").run();
        }

        for (String[] bad : List.of(
                new String[] {"attach"},
                new String[] {"attach", "1", "--tag", "x"},
                new String[] {"wait", "abc"},
                new String[] {"kill", "1", "--signal", "HUP"},
                new String[] {"run", "--", "true"},
                new String[] {"run", "--detach", "--timeout", "soon", "--", "true"},
                new String[] {"attach", "1", "--stdout-offset", "-1"})) {
            CliProcess.Result r = cli(bad).run();
            assertThat(r.exitCode()).as(String.join(" ", bad) + ": " + r).isEqualTo(2);
            assertThat(r.stderr())
                    .startsWith("sandboxd-cli: " + bad[0] + ": ")
                    .contains("Try 'sandboxd-cli " + bad[0] + " --help'");
        }
        for (String verb : List.of("run", "attach", "ps", "wait", "kill")) {
            CliProcess.Result h = cli(verb, "--help").run();
            assertThat(h.exitCode()).isZero();
            assertThat(h.stdout()).startsWith("Usage: sandboxd-cli " + verb);
        }
    }
}
