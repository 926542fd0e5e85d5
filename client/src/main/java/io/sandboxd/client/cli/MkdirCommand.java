package io.sandboxd.client.cli;

import io.sandboxd.client.SandboxdClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mkdir}: a sandbox directory. */
@CommandLine.Command(
        name = "mkdir",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Creates a sandbox directory (mode 0755). Without -p its parent must exist and the name must be free; "
                    + "with -p missing parents are created and an existing directory is fine."
        })
final class MkdirCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "-p", description = "Create missing parents; an existing directory is no error.")
    boolean parents;

    @Parameters(paramLabel = ":PATH", description = "Sandbox path (the ':' is optional).")
    String path;

    @Override
    public Integer call() {
        try (SandboxdClient client = conn.client()) {
            client.files().mkdir(FileOpsCli.remote(path), parents);
            return 0;
        }
    }
}
