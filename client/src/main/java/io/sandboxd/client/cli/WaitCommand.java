package io.sandboxd.client.cli;

import io.sandboxd.client.DurableProcesses;
import io.sandboxd.client.SandboxdClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code wait}: waits for a durable process to end; exits with its exit code. */
@CommandLine.Command(
        name = "wait",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Waits for a durable process (by ID or --tag) to end, or takes the exit record of one that "
                + "has, and exits with its exit code (128+N after signal N, 124 after a server-side timeout).")
final class WaitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Parameters(arity = "0..1", paramLabel = "ID", description = "The process id (or use --tag).")
    String id;

    @Option(names = "--tag", paramLabel = "T", description = "The process's tag instead of its id.")
    String tag;

    @Override
    public Integer call() {
        var ref = DurableCli.ref(spec, id, tag);
        try (SandboxdClient client = conn.client()) {
            return DurableProcesses.shellExitCode(client.durable().waitFor(ref));
        }
    }
}
