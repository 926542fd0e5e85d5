package io.sandboxd.client.cli;

import io.sandboxd.api.process.v1.Signal;
import io.sandboxd.client.SandboxdClient;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kill}: signals a durable process's group. */
@CommandLine.Command(
        name = "kill",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Sends a signal (default TERM) to the process group of a process (by ID or --tag).")
final class KillCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Parameters(arity = "0..1", paramLabel = "ID", description = "The process id (or use --tag).")
    String id;

    @Option(names = "--tag", paramLabel = "T", description = "The process's tag instead of its id.")
    String tag;

    @Option(
            names = "--signal",
            paramLabel = "INT|TERM|KILL",
            description = "The signal (also SIGINT…, 2, 15, 9; default TERM).")
    String signal = "TERM";

    @Override
    public Integer call() {
        var ref = DurableCli.ref(spec, id, tag);
        Signal s = parseSignal(signal);
        if (s == null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--signal must be INT, TERM or KILL, got \"" + signal + "\"");
        }
        try (SandboxdClient client = conn.client()) {
            client.durable().kill(ref, s);
            return 0;
        }
    }

    static Signal parseSignal(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        if (t.startsWith("SIG")) {
            t = t.substring(3);
        }
        return switch (t) {
            case "INT", "2" -> Signal.SIGNAL_SIGINT;
            case "TERM", "15" -> Signal.SIGNAL_SIGTERM;
            case "KILL", "9" -> Signal.SIGNAL_SIGKILL;
            default -> null;
        };
    }
}
