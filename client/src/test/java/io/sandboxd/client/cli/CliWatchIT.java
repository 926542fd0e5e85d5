package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.RunningDaemon;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code sandboxd-cli watch} as a real process (runtime-contract §4.2): JSON lines, excludes, an
 * error event ends it with exit 1, and a daemon restart in between is resumed, not fatal.
 */
class CliWatchIT {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** The CLI's stdout, line by line, on a thread of its own. */
    static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    q.add(l);
                }
            } catch (java.io.IOException e) {
                // the process ended
            }
            q.add("<eof>");
        });
        t.setDaemon(true);
        t.start();
        return q;
    }

    /** The next JSON line whose path is {@code path} (and type, unless null), skipping others; fails after 30 s. */
    static JsonNode until(BlockingQueue<String> q, String type, String path) throws InterruptedException {
        while (true) {
            String l = q.poll(30, TimeUnit.SECONDS);
            assertThat(l)
                    .as("a line (waiting for %s %s)", type, path)
                    .isNotNull()
                    .isNotEqualTo("<eof>");
            JsonNode n = JSON.readTree(l);
            if ((type == null || n.path("type").asString().equals(type))
                    && n.path("path").asString().equals(path)) {
                return n;
            }
        }
    }

    static void sh(Path root, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script)
                .directory(root.toFile())
                .inheritIO()
                .start();
        assertThat(p.waitFor()).isZero();
    }

    @Test
    void followsAsJsonLinesSurvivesADaemonRestartAndEndsWithExit1OnAnError() throws Exception {
        Path root = Files.createTempDirectory("cli-watch-root").toRealPath();
        Files.createDirectories(root.resolve("w/skip"));
        RunningDaemon first = TestDaemons.start("cli-watch", s -> s.withRootDir(root));
        Process cli = null;
        RunningDaemon second = null;
        try {
            cli = CliProcess.cli("watch", "--json", "--recursive", "--exclude", "skip", ":/w")
                    .env("SANDBOXD_GRPC_ADDR", first.grpcTarget())
                    .env("SANDBOXD_REST_ADDR", first.restBase())
                    .start();
            BlockingQueue<String> out = lines(cli);
            // the watch is in place once a change shows; poke until one does
            JsonNode probe = null;
            for (int i = 0; probe == null && i < 60; i++) {
                sh(root, "touch w/probe" + i);
                String l = out.poll(1, TimeUnit.SECONDS);
                if (l != null && !l.equals("<eof>")) {
                    probe = JSON.readTree(l);
                }
            }
            assertThat(probe).as("the CLI printed an event").isNotNull();
            sh(root, "touch w/skip/hidden && mkdir -p w/d && printf abc > w/d/f");
            // f was written as its directory appeared: "created" by the scan of the new directory
            // (runtime-contract §4.2) if that came after the write, else "modified" once written
            JsonNode f;
            do {
                f = until(out, null, "/w/d/f");
            } while (f.path("size").asLong() != 3);
            assertThat(f.path("type").asString()).isIn("created", "modified");
            assertThat(f.path("seq").asLong()).isPositive();

            // the daemon goes away and comes back on the same ports: the CLI reconnects with the
            // last id it printed, which the new run cannot resume, so it says resync
            int grpcPort = first.grpcPort();
            int restPort = first.restPort();
            first.stop();
            second = TestDaemons.spec("cli-watch-2")
                    .withRootDir(root)
                    .withPorts(grpcPort, restPort)
                    .start();
            JsonNode resync = until(out, "resync", "/w");
            assertThat(resync.path("reason").asString()).isEqualTo("cursor");
            sh(root, "touch w/after");
            until(out, "created", "/w/after");

            sh(root, "rm -r w");
            JsonNode error = until(out, "error", "/w");
            assertThat(error.path("code").asString()).isEqualTo("NOT_FOUND");
            assertThat(cli.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(cli.exitValue()).isEqualTo(1);
            String err = new String(cli.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(err).contains("sandboxd-cli: watch: the watched directory /w was deleted");
            assertThat(String.join("\n", out)).doesNotContain("hidden");
        } finally {
            if (cli != null) {
                cli.destroyForcibly();
            }
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }
}
