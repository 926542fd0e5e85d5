package io.sandboxd.client.cli;

import io.sandboxd.api.GoDuration;
import io.sandboxd.client.Command;
import io.sandboxd.client.DurableOptions;
import io.sandboxd.client.SandboxdClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code run --detach}: starts a durable process and prints its id. */
@CommandLine.Command(
        name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Starts CMD (no shell) in the sandbox as a durable process that keeps running without "
                    + "us, prints its id alone on one line, and exits 0 at once.",
            "Follow it with attach, wait, ps and kill. Requests have the default 30 s deadline (--timeout "
                    + "here is the process's own)."
        },
        footer = {"", "Example: sandboxd-cli run --detach --tag build --timeout 30m -- sh -c 'make all'"})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DaemonOptions conn;

    @Option(names = "--detach", required = true, description = "Required: the process outlives this command.")
    boolean detach;

    @Option(
            names = "--tag",
            paramLabel = "T",
            description = "A tag unique among live processes, usable instead of the id.")
    String tag;

    @Option(
            names = "--timeout",
            paramLabel = "DUR",
            description = "Server-side deadline, Go syntax (90s, 1h30m): "
                    + "then SIGTERM to the tree, a grace, SIGKILL; attach and wait then exit 124.")
    String timeout;

    @Option(names = "--tty", description = "Run under a pseudo-terminal (the local terminal's size, else 80x24).")
    boolean tty;

    @Option(names = "--cwd", paramLabel = "DIR", description = "Working directory, relative to the sandbox root.")
    String cwd;

    @Option(
            names = "--env",
            paramLabel = "K=V",
            description = "Environment variable (repeatable), merged over the daemon's.")
    Map<String, String> env = new LinkedHashMap<>();

    @Parameters(arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (no shell).")
    List<String> command;

    @Override
    public Integer call() {
        if (!detach) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--detach is required (exec runs a process tied to this command)");
        }
        DurableOptions o = DurableOptions.detached().tag(tag);
        if (timeout != null) {
            Duration d;
            try {
                d = GoDuration.parse(timeout);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
            }
            if (d.isZero() || d.isNegative() || d.toMillis() == 0) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--timeout must be at least 1ms, got " + timeout);
            }
            o = o.timeout(d);
        }
        if (tag != null && tag.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--tag must not be empty");
        }
        Command cmd = Command.of(command).env(env);
        if (cwd != null) {
            cmd = cmd.cwd(cwd);
        }
        if (tty) {
            int[] size = Terminal.size().orElse(new int[] {80, 24});
            cmd = cmd.tty(size[0], size[1]);
        }
        try (SandboxdClient client = conn.client()) {
            int id = client.durable().start(cmd, o);
            System.out.println(id);
            System.out.flush();
            return 0;
        }
    }
}
