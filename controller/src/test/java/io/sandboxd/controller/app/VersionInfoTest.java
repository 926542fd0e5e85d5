package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class VersionInfoTest {
    @Test
    void versionPrintsTheProjectVersionAndTheGitRevision() {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new Main()).setOut(new PrintWriter(out));
        assertThat(cmd.execute("--version")).isZero();
        // A build from a git checkout knows its revision; a source tarball says "unknown".
        assertThat(out.toString().trim())
                .matches("sandboxd-controller \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(git ([0-9a-f]{12}|unknown)\\)");
    }
}
