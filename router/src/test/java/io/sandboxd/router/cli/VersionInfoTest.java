package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class VersionInfoTest {
    @Test
    void versionPrintsTheProjectVersionAndTheGitRevision() {
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(new RouterMain()).setOut(new PrintWriter(out));
        assertThat(cmd.execute("--version")).isZero();
        assertThat(out.toString().trim())
                .matches("sandboxd-router \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(git ([0-9a-f]{12}|unknown)\\)");
        // built from a git checkout here: the revision is known
        assertThat(VersionInfo.value("revision")).matches("[0-9a-f]{12}");
    }
}
