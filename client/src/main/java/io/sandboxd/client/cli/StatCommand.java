package io.sandboxd.client.cli;

import io.sandboxd.client.EntryStat;
import io.sandboxd.client.SandboxdClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stat}: one entry, a symlink described as itself. */
@CommandLine.Command(
        name = "stat",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Describes one sandbox entry: type, mode, size, modification time, path; a symlink as itself "
                    + "with its target and whether it resolves inside the root, outside it, or nowhere.",
            "--json prints the daemon's stat object ({\"path\",\"type\",\"size\",\"mode\",\"modified_at\", and "
                    + "\"etag\" for files, \"link_target\",\"link_resolves\" for symlinks})."
        })
final class StatCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "--json", description = "Print the stat object as JSON.")
    boolean json;

    @Parameters(paramLabel = ":PATH", description = "Sandbox path (the ':' is optional).")
    String path;

    @Override
    public Integer call() {
        try (SandboxdClient client = conn.client()) {
            EntryStat s = client.files().stat(FileOpsCli.remote(path));
            if (json) {
                System.out.println(FileOpsCli.json(s));
            } else {
                String link = s.linkTarget() == null ? null : s.linkTarget() + " (" + s.linkResolves() + ")";
                System.out.println(FileOpsCli.line(s.type(), s.mode(), s.size(), s.modifiedAt(), s.path(), link));
            }
            System.out.flush();
            return 0;
        }
    }
}
