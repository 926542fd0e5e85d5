package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code context create|exec|interrupt|restart|rm|ls} as real processes against the daemon with a
 * real kernel. As root, the daemon runs with {@code --run-as-user 65534:65534}, as in a Pod: the
 * kernel runs as nobody, and its connection file is nobody's, mode 0600.
 */
class CliContextIT {
    static final int NOBODY = 65534;
    static RunningDaemon daemon;
    static Path state;
    static boolean asNobody;
    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path work;

    @BeforeAll
    static void start() throws Exception {
        state = Files.createTempDirectory("cli-context-state");
        asNobody = ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        if (asNobody) {
            // a kernel running as nobody reads its connection file under the state dir
            Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx--x--x"));
            daemon = TestDaemons.start(
                    "cli-context",
                    s -> s.withArgs("--state-dir", state.toString(), "--run-as-user", NOBODY + ":" + NOBODY));
        } else {
            daemon = TestDaemons.start("cli-context", s -> s.withArgs("--state-dir", state.toString()));
        }
    }

    @AfterAll
    static void stop() {
        daemon.close();
    }

    CliProcess cli(String... args) {
        return CliProcess.cli(args)
                .dir(work)
                .env("SANDBOXD_GRPC_ADDR", daemon.grpcTarget())
                .env("SANDBOXD_REST_ADDR", daemon.restBase());
    }

    @Test
    void createExecLsRestartRm() throws Exception {
        CliProcess.Result created =
                cli("context", "create", "--language", "python").run();
        assertThat(created.exitCode()).as(created.toString()).isZero();
        String id = created.stdout().strip();
        assertThat(id).matches("ctx-[0-9a-f]+");

        // text as text; a figure goes to a file whose name is printed
        CliProcess.Result r = cli(
                        "context",
                        "exec",
                        id,
                        "x = 41\nprint(x + 1)\nimport matplotlib.pyplot as plt\nplt.figure(figsize=(1, 1))\n"
                                + "plt.plot([1, 2])\nplt.show()\nx")
                .run();
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.stdout()).startsWith("42\n").endsWith("]\n41\n");
        Matcher m = Pattern.compile("\\[image/png, ([0-9]+) bytes: (\\S+)]").matcher(r.stdout());
        assertThat(m.find()).as(r.stdout()).isTrue();
        byte[] png = Files.readAllBytes(work.resolve(m.group(2)));
        assertThat(png).hasSize(Integer.parseInt(m.group(1))).startsWith(0x89, 'P', 'N', 'G');

        // CODE "-" reads stdin; an exception: traceback on stderr, exit 1
        r = cli("context", "exec", id, "-").stdin("print(x)\n1/0\n").run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.stdout()).isEqualTo("41\n");
        assertThat(r.stderr()).contains("ZeroDivisionError");

        // --json: one object per output, binary as base64, status last
        r = cli("context", "exec", "--json", id, "print('hi')\nplt.plot([1, 2])\nplt.show()")
                .run();
        assertThat(r.exitCode()).as(r.toString()).isZero();
        List<JsonNode> lines = r.stdout().lines().map(JSON::readTree).toList();
        assertThat(lines.get(0).get("type").asText()).isEqualTo("stream");
        assertThat(lines.get(0).get("text").asText()).isEqualTo("hi\n");
        JsonNode display = lines.stream()
                .filter(l -> l.get("type").asText().equals("display_data"))
                .findFirst()
                .orElseThrow();
        assertThat(Base64.getDecoder()
                        .decode(display.get("data").get("image/png").asText()))
                .startsWith(0x89, 'P', 'N', 'G');
        JsonNode status = lines.get(lines.size() - 1);
        assertThat(status.get("type").asText()).isEqualTo("status");
        assertThat(status.get("state").asText()).isEqualTo("ok");

        // --timeout: interrupted by the daemon, exit 1
        r = cli("context", "exec", "--timeout", "500ms", id, "import time\ntime.sleep(30)")
                .run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).contains("timed out");

        CliProcess.Result ls = cli("context", "ls").run();
        assertThat(ls.exitCode()).as(ls.toString()).isZero();
        assertThat(ls.stdout()).contains(id).contains("python").contains("idle");
        JsonNode all = JSON.readTree(cli("context", "ls", "--json").run().stdout());
        assertThat(all.get("contexts").get(0).get("id").asText()).isEqualTo(id);
        long pid = all.get("contexts").get(0).get("kernel_pid").asLong();
        assertThat(pid).isPositive();
        if (asNobody) {
            assertRunsAsNobody(pid);
        }

        assertThat(cli("context", "interrupt", id).run().exitCode()).isZero();
        assertThat(cli("context", "restart", id).run().exitCode()).isZero();
        if (asNobody) {
            long restarted = JSON.readTree(cli("context", "ls", "--json").run().stdout())
                    .get("contexts")
                    .get(0)
                    .get("kernel_pid")
                    .asLong();
            assertThat(restarted).isNotEqualTo(pid);
            assertRunsAsNobody(restarted);
        }
        assertThat(cli("context", "rm", id).run().exitCode()).isZero();
        assertThat(connectionFiles()).as("connection files after rm").isEmpty();
        r = cli("context", "interrupt", id).run();
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr()).contains("not found");
    }

    /** The kernel's real, effective, saved and filesystem uid and gid; its connection file private to nobody. */
    static void assertRunsAsNobody(long pid) throws Exception {
        List<String> status = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"));
        for (String field : List.of("Uid:", "Gid:")) {
            String line =
                    status.stream().filter(l -> l.startsWith(field)).findFirst().orElseThrow();
            assertThat(line.substring(4).trim().split("\\s+"))
                    .as("%s of kernel %d", field, pid)
                    .containsOnly(Integer.toString(NOBODY));
        }
        List<Path> files = connectionFiles();
        assertThat(files).hasSize(1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get(0))))
                .isEqualTo("rw-------");
        assertThat(Files.getAttribute(files.get(0), "unix:uid")).isEqualTo(NOBODY);
    }

    static List<Path> connectionFiles() throws Exception {
        try (var s = Files.walk(state)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".json")).toList();
        }
    }
}
