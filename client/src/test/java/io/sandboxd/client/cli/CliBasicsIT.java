package io.sandboxd.client.cli;

import static io.sandboxd.client.cli.CliProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.client.TestDaemons;
import io.sandboxd.testkit.DaemonSpec;
import io.sandboxd.testkit.FreePorts;
import io.sandboxd.testkit.RunningDaemon;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Version, help, usage errors, addresses, tokens, health: the CLI as a real process. */
class CliBasicsIT {
    static final String TOKEN = "cli-t0ken";
    static RunningDaemon open;
    static RunningDaemon secured;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws Exception {
        open = TestDaemons.start("cli-basics");
        secured = TestDaemons.start("cli-basics-auth", s -> s.withAuthToken(TOKEN));
    }

    @AfterAll
    static void stop() {
        open.close();
        secured.close();
    }

    @Test
    void versionPrintsTheProjectVersionAndTheGitRevisionItWasBuiltFrom() throws Exception {
        CliProcess.Result r = cli("--version").run();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .matches("sandboxd-cli \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(git ([0-9a-f]{12}|unknown)\\)\n");
        Process git = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD")
                .directory(DaemonSpec.repoRoot().toFile())
                .redirectErrorStream(true)
                .start();
        String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (git.waitFor() == 0) {
            assertThat(r.stdout()).contains("(git " + head + ")");
        }
        assertThat(cli("exec", "--version").run().stdout()).isEqualTo(r.stdout());
    }

    @Test
    void everyVerbHasHelp() throws Exception {
        for (String verb : new String[] {"exec", "cp", "ls", "rm", "health"}) {
            CliProcess.Result r = cli(verb, "--help").run();
            assertThat(r.exitCode()).as(verb).isZero();
            assertThat(r.stdout())
                    .as(verb)
                    .contains("Usage: sandboxd-cli " + verb)
                    .contains("--grpc=HOST:PORT")
                    .contains("--rest=URL")
                    .contains("--token-file=FILE");
        }
        CliProcess.Result top = cli("--help").run();
        assertThat(top.exitCode()).isZero();
        assertThat(top.stdout()).contains("exec", "cp", "ls", "rm", "health", "SANDBOXD_GRPC_ADDR", "SANDBOXD_TOKEN");
        assertThat(cli("help", "cp").run().stdout()).contains("Usage: sandboxd-cli cp");
    }

    @Test
    void usageErrorsExit2WithOneLineAndAHint() throws Exception {
        String[][] cases = {
            {},
            {"bogus"},
            {"exec", "--nope", "--", "true"},
            {"exec"},
            {"exec", "--env", "NOEQUALS", "--", "true"},
            {"cp", "a", "b"},
            {"cp", ":a", ":b"},
            {"cp", "onlyone"},
            {"rm"},
            {"ls", "--grpc", "no-port", ":"},
            {"exec", "--timeout", "soon", "--", "true"},
            {"ls", "--rest", "ftp://x:1", ":"},
        };
        for (String[] args : cases) {
            CliProcess.Result r = cli(args).run();
            assertThat(r.exitCode()).as(String.join(" ", args) + " → " + r).isEqualTo(2);
            assertThat(r.stderr().lines().toList()).as(String.join(" ", args)).hasSize(2);
            assertThat(r.stderr()).startsWith("sandboxd-cli: ").contains("Try 'sandboxd-cli");
            assertNoJavaInternals(r.stderr());
        }
        assertThat(cli("cp", "a", "b").run().stderr())
                .startsWith("sandboxd-cli: cp: exactly one of SRC and DST must be a sandbox path (:PATH)");
        assertThat(cli("exec", "--timeout", "soon", "--", "true").run().stderr())
                .startsWith("sandboxd-cli: exec: --timeout: invalid duration \"soon\"");
    }

    @Test
    void anUnreachableDaemonNamesTheAddressTried() throws Exception {
        int port = FreePorts.pick();
        CliProcess.Result g =
                cli("exec", "--grpc", "127.0.0.1:" + port, "--", "true").run();
        assertThat(g.exitCode()).isEqualTo(1);
        assertThat(g.stderr())
                .isEqualTo("sandboxd-cli: exec: cannot reach sandboxd gRPC at 127.0.0.1:" + port
                        + ": connection refused\n");
        CliProcess.Result r =
                cli("ls").env("SANDBOXD_REST_ADDR", "http://127.0.0.1:" + port).run();
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr())
                .isEqualTo("sandboxd-cli: ls: cannot reach sandboxd REST at http://127.0.0.1:" + port
                        + ": connection refused\n");
        CliProcess.Result h = cli("health", "--grpc", "127.0.0.1:" + port, "--rest", "127.0.0.1:" + port)
                .run();
        assertThat(h.exitCode()).isEqualTo(1);
        assertThat(h.stdout())
                .isEqualTo("rest http://127.0.0.1:" + port + ": cannot reach sandboxd REST at http://127.0.0.1:" + port
                        + ": connection refused\ngrpc 127.0.0.1:" + port + ": cannot reach sandboxd gRPC at 127.0.0.1:"
                        + port
                        + ": connection refused\n");
    }

    @Test
    void defaultsAreLoopbackAndFlagsWinOverEnvironment() throws Exception {
        // Whatever listens on 9090/8080 here, the message names the default address.
        CliProcess.Result d = cli("exec", "--timeout", "2s", "--", "true").run();
        if (d.exitCode() == 1) {
            assertThat(d.stderr()).contains("127.0.0.1:9090");
        }
        int dead = FreePorts.pick();
        CliProcess.Result flagWins = cli("exec", "--grpc", open.grpcTarget(), "--", "echo", "flag")
                .env("SANDBOXD_GRPC_ADDR", "127.0.0.1:" + dead)
                .run();
        assertThat(flagWins.stdout()).isEqualTo("flag\n");
        CliProcess.Result envUsed = cli("exec", "--", "echo", "env")
                .env("SANDBOXD_GRPC_ADDR", open.grpcTarget())
                .run();
        assertThat(envUsed.stdout()).isEqualTo("env\n");
        CliProcess.Result restEnv = cli("ls")
                .env("SANDBOXD_REST_ADDR", "127.0.0.1:" + open.restPort())
                .run();
        assertThat(restEnv.exitCode()).as("host:port without a scheme is http").isZero();
    }

    @Test
    void healthReportsBothApis() throws Exception {
        CliProcess.Result r = cli("health", "--grpc", open.grpcTarget(), "--rest", open.restBase())
                .run();
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .matches("rest " + open.restBase() + ": ok \\(up \\d+ s\\)\ngrpc " + open.grpcTarget() + ": ok\n");
    }

    @Test
    void theTokenComesFromAFileOrTheEnvironmentAndIsRequired() throws Exception {
        Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        String grpc = secured.grpcTarget();
        String rest = secured.restBase();
        assertThat(cli("exec", "--grpc", grpc, "--token-file", tokenFile.toString(), "--", "echo", "ok")
                        .run()
                        .stdout())
                .isEqualTo("ok\n");
        assertThat(cli("ls", "--rest", rest).env("SANDBOXD_TOKEN", TOKEN).run().exitCode())
                .isZero();

        CliProcess.Result noToken = cli("ls", "--rest", rest).run();
        assertThat(noToken.exitCode()).isEqualTo(1);
        assertThat(noToken.stderr())
                .isEqualTo("sandboxd-cli: ls: /: unauthenticated: missing or wrong token "
                        + "(use --token-file or SANDBOXD_TOKEN) (401)\n");
        CliProcess.Result grpcNoToken = cli("exec", "--grpc", grpc, "--", "true")
                .env("SANDBOXD_TOKEN", "wrong")
                .run();
        assertThat(grpcNoToken.exitCode()).isEqualTo(1);
        assertThat(grpcNoToken.stderr())
                .isEqualTo("sandboxd-cli: exec: unauthenticated: missing or wrong token "
                        + "(use --token-file or SANDBOXD_TOKEN) (UNAUTHENTICATED)\n");
        CliProcess.Result health = cli("health", "--grpc", grpc, "--rest", rest).run();
        assertThat(health.exitCode()).as("health is open, the gRPC call is not").isEqualTo(1);
        assertThat(health.stdout()).contains(": ok (up ").contains("grpc " + grpc + ": unauthenticated");
        CliProcess.Result missingFile =
                cli("ls", "--token-file", tmp.resolve("absent").toString()).run();
        assertThat(missingFile.exitCode()).isEqualTo(2);
        assertThat(missingFile.stderr()).contains("cannot read --token-file").contains("no such file or directory");
    }

    @Test
    void theTokenNeverAppearsOnTheCommandLine() throws Exception {
        CliProcess.Result r = cli("ls", "--token", TOKEN).run();
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("Unknown option: '--token'");
    }

    static void assertNoJavaInternals(String stderr) {
        assertThat(stderr)
                .doesNotContain("Exception")
                .doesNotContain("\tat ")
                .doesNotContain("io.sandboxd")
                .doesNotContain("picocli.");
    }
}
