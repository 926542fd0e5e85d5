package io.sandboxd.client.cli;

import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.SandboxdException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rm}: files, symlinks, directories. */
@CommandLine.Command(
        name = "rm",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Removes sandbox files, symlinks (not their targets) and empty directories; with -r also "
                    + "non-empty directories. ':' or ':/' with -r empties the root (the root itself stays).",
            "Every PATH is tried; the exit code is 1 if any failed."
        })
final class RmCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(
            names = {"-r", "--recursive"},
            description = "Remove directories and their contents.")
    boolean recursive;

    @Parameters(arity = "1..*", paramLabel = ":PATH", description = "Sandbox paths (the ':' is optional).")
    List<String> paths;

    @Override
    public Integer call() throws IOException {
        try (SandboxdClient client = conn.client()) {
            return run(client);
        }
    }

    private int run(SandboxdClient client) throws IOException {
        int rc = 0;
        for (String p : paths) {
            try {
                client.delete(p.startsWith(":") ? p.substring(1) : p, recursive);
            } catch (SandboxdException e) {
                if (paths.size() == 1) {
                    throw e;
                }
                Cli.error("rm", e);
                rc = 1;
            }
        }
        return rc;
    }
}
