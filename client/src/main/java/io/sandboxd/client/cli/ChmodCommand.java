package io.sandboxd.client.cli;

import io.sandboxd.client.SandboxdClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code chmod}: the mode of one sandbox entry. */
@CommandLine.Command(
        name = "chmod",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Sets the mode of an existing sandbox entry, following a symlink within the root. MODE is octal "
                    + "(755, 0640, 1777); setuid and setgid bits are refused."
        })
final class ChmodCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Parameters(index = "0", paramLabel = "MODE", description = "Octal mode, e.g. 0644.")
    String mode;

    @Parameters(index = "1", paramLabel = ":PATH", description = "Sandbox path (the ':' is optional).")
    String path;

    @Override
    public Integer call() {
        if (!mode.matches("^0?[0-7]{3,4}$")) {
            throw new ParameterException(spec.commandLine(), "MODE must be octal like 0644, got '" + mode + "'");
        }
        try (SandboxdClient client = conn.client()) {
            client.files().chmod(FileOpsCli.remote(path), Integer.parseInt(mode, 8));
            return 0;
        }
    }
}
