package io.sandboxd.client.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.FileEntry;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.RestCallException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The CLI's pieces that need no daemon: messages, mode strings, terminal sizes, version. */
class CliPartsTest {
    @Test
    void aVerbFirstRegistersThatVerbAloneWithTheSameUsageAsAmongAll() {
        CommandLine all = Cli.commandLine("--help");
        assertThat(all.getSubcommands().keySet()).containsExactlyElementsOf(Cli.VERBS);
        for (String verb : Cli.VERBS) {
            CommandLine alone = Cli.commandLine(verb, "--help");
            if (verb.equals("help")) {
                assertThat(alone.getSubcommands().keySet()).containsExactlyElementsOf(Cli.VERBS);
                continue;
            }
            assertThat(alone.getSubcommands().keySet()).containsExactly(verb);
            assertThat(alone.getSubcommands().get(verb).getUsageMessage(CommandLine.Help.Ansi.OFF))
                    .isEqualTo(all.getSubcommands().get(verb).getUsageMessage(CommandLine.Help.Ansi.OFF));
        }
        assertThat(Cli.commandLine().getSubcommands().keySet()).containsExactlyElementsOf(Cli.VERBS);
        assertThat(Cli.commandLine("exe").getSubcommands().keySet()).containsExactlyElementsOf(Cli.VERBS);
    }

    @Test
    void errorsReadAsOneLineWithoutClassNames() {
        assertThat(CliErrors.describe(
                        new RestCallException("GET", "/x/y", 404, "NOT_FOUND", "path does not exist", null)))
                .isEqualTo("/x/y: not found (404)");
        assertThat(CliErrors.describe(
                        new RestCallException("DELETE", "/d", 409, "CONFLICT", "directory is not empty", null)))
                .isEqualTo("/d: conflict: directory is not empty (409)");
        assertThat(CliErrors.describe(new GrpcCallException(
                        "Execute", "h:1", Status.NOT_FOUND.withDescription("no such thing"), null)))
                .isEqualTo("no such thing (NOT_FOUND)");
        assertThat(CliErrors.describe(new GrpcCallException("Start", "h:1", Status.DEADLINE_EXCEEDED, null)))
                .isEqualTo("deadline exceeded (DEADLINE_EXCEEDED)");
        assertThat(CliErrors.describe(new DaemonUnreachableException(
                        "gRPC", "h:1", new java.net.ConnectException("Connection refused"))))
                .isEqualTo("cannot reach sandboxd gRPC at h:1: connection refused");
        assertThat(CliErrors.describe(new UncheckedIOException(new NoSuchFileException("/tmp/a"))))
                .isEqualTo("/tmp/a: no such file or directory");
        assertThat(CliErrors.describe(new AccessDeniedException("/root/x"))).isEqualTo("/root/x: permission denied");
        assertThat(CliErrors.describe(new IllegalStateException())).isEqualTo("unexpected error");
        assertThat(CliErrors.describe(new IllegalStateException("boom"))).isEqualTo("unexpected error: boom");
    }

    @Test
    void modesReadLikeLs() {
        assertThat(LsCommand.modeString(new FileEntry("d", 0, "directory", Instant.EPOCH, "0755")))
                .isEqualTo("drwxr-xr-x");
        assertThat(LsCommand.modeString(new FileEntry("f", 0, "file", Instant.EPOCH, "0640")))
                .isEqualTo("-rw-r-----");
        assertThat(LsCommand.modeString(new FileEntry("f", 0, "file", Instant.EPOCH, "junk")))
                .isEqualTo("----------");
        assertThat(LsCommand.line(new FileEntry("a b", 12, "file", Instant.parse("2026-01-02T03:04:05Z"), "0600")))
                .isEqualTo("-rw-------           12 2026-01-02T03:04:05Z a b");
    }

    @Test
    void sttySizeIsRowsThenColumns() {
        assertThat(Terminal.parseSize("45 123\n"))
                .hasValueSatisfying(s -> assertThat(s).containsExactly(123, 45));
        assertThat(Terminal.parseSize("0 0")).isEmpty();
        assertThat(Terminal.parseSize("garbage")).isEmpty();
    }

    @Test
    void versionComesFromTheFilteredResource() {
        assertThat(VersionInfo.value("version")).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        assertThat(VersionInfo.value("revision")).matches("[0-9a-f]{12}|unknown");
        assertThat(VersionInfo.value("no-such-key")).isEqualTo("unknown");
    }
}
