package io.sandboxd.client.cli;

import io.sandboxd.client.SandboxdClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mv}: one atomic rename inside the sandbox. */
@CommandLine.Command(
        name = "mv",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Renames :SRC to exactly :DST (not into it) in one atomic rename; a symlink is moved itself. An existing "
                    + ":DST is an error unless --overwrite (a non-empty directory never is replaced); a directory "
                    + "into itself is an error."
        })
final class MvCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "--overwrite", description = "Replace an existing :DST.")
    boolean overwrite;

    @Parameters(index = "0", paramLabel = ":SRC", description = "Sandbox path (the ':' is optional).")
    String src;

    @Parameters(index = "1", paramLabel = ":DST", description = "Sandbox path (the ':' is optional).")
    String dst;

    @Override
    public Integer call() {
        try (SandboxdClient client = conn.client()) {
            client.files().move(FileOpsCli.remote(src), FileOpsCli.remote(dst), overwrite);
            return 0;
        }
    }
}
