package io.sandboxd.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.RunningDaemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a 100,000-deep directory chain (far past PATH_MAX and any thread stack), made by a
 * process, is removed by DELETE with 204, by its path and as part of {@code DELETE /v1/files/?recursive=true};
 * listing, deleting and the path walk never recurse. Packaged jar at -Xmx64m with the launcher's
 * small thread stacks (-Xss256k).
 */
class DeepTreeIT {
    static final int DEPTH = 100_000;
    /** A remover that never ends fails the test instead of hanging it (2 s each here, 40 s at load 30). */
    static final Duration LIMIT = Duration.ofMinutes(5);

    @TempDir
    Path tmp;

    static String chain(String top) {
        return "import os\n"
                + "fd = os.open(b'.', os.O_RDONLY)\n"
                + "os.mkdir(b'" + top + "', dir_fd=fd)\n"
                + "cur = os.open(b'" + top + "', os.O_RDONLY, dir_fd=fd)\n"
                + "os.close(fd)\n"
                + "for i in range(" + DEPTH + "):\n"
                + "    os.mkdir(b'd', dir_fd=cur)\n"
                + "    nxt = os.open(b'd', os.O_RDONLY, dir_fd=cur)\n"
                + "    os.close(cur)\n"
                + "    cur = nxt\n"
                + "os.close(os.open(b'\\xff\\xfe', os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=cur))\n"
                + "os.close(cur)\n";
    }

    @Test
    void hundredThousandDeepChainsDeleteWith204() throws Exception {
        Path scratch = ScratchDir.under(tmp);
        try {
            Path root = Files.createDirectories(scratch.resolve("root"));
            ScratchDir.python(root, chain("deep"));
            ScratchDir.python(root, chain("deep2"));
            try (RunningDaemon d = DaemonSpec.packagedJar()
                    .withJvmOptions("-Xmx64m", "-Xss256k")
                    .withRootDir(root)
                    .withLogs(tmp, "daemon")
                    .withReadyTimeout(Duration.ofSeconds(60))
                    .start()) {
                HttpClient http = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + d.restPort() + "/v1/files/";
                HttpResponse<String> list = http.send(
                        HttpRequest.newBuilder(URI.create(base + "deep/d/d"))
                                .timeout(LIMIT)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(list.statusCode()).isEqualTo(200);
                // the path walk at the deepest a path can reach: 2,046 levels in 4,094 bytes; one
                // level more is a path over 4,095 bytes, a client error
                String deepest = "deep" + "/d".repeat(2045);
                for (String path : List.of(deepest, deepest + "/d")) {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(URI.create(base + path))
                                    .timeout(LIMIT)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode())
                            .as("GET of a %d-byte path: %s", path.length(), r.body())
                            .isEqualTo(path.equals(deepest) ? 200 : 400);
                }

                long t0 = System.nanoTime();
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "deep?recursive=true"))
                                .timeout(LIMIT)
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                long byPath = System.nanoTime() - t0;
                assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
                assertThat(root.resolve("deep")).doesNotExist();

                t0 = System.nanoTime();
                r = http.send(
                        HttpRequest.newBuilder(URI.create(base + "?recursive=true"))
                                .timeout(LIMIT)
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                long wholeRoot = System.nanoTime() - t0;
                assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
                try (var s = Files.list(root)) {
                    assertThat(s.count()).isZero();
                }
                assertThat(d.stdout() + d.stderr())
                        .doesNotContain("StackOverflowError")
                        .doesNotContain("Exception");
                System.out.printf(
                        "100,000-deep chain: DELETE by path %d ms, DELETE /v1/files/?recursive=true %d ms,"
                                + " daemon RSS %d MiB (-Xmx64m -Xss256k)%n",
                        byPath / 1_000_000, wholeRoot / 1_000_000, d.observer().rssBytes() / 1024 / 1024);
            }
        } finally {
            ScratchDir.remove(scratch);
        }
    }
}
