package io.sandboxd.daemon.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.Map;

/** Entry point: parse, validate (exit 2 on a bad value), run until SIGTERM/SIGINT, exit 0. */
public final class Main {
    public static final int EXIT_USAGE = 2;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv()));
    }

    static int run(String[] args, Map<String, String> env) {
        SandboxdCommand options = new SandboxdCommand();
        CommandLine cmd = new CommandLine(options);
        DaemonConfig config;
        try {
            CommandLine.ParseResult parsed = cmd.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) {
                return 0;
            }
            config = options.toConfig(cmd, env);
        } catch (CommandLine.ParameterException e) {
            PrintWriter err = new PrintWriter(System.err, true);
            err.println("sandboxd: " + oneLine(e.getMessage()) + " (see --help)");
            return EXIT_USAGE;
        }
        Daemon daemon = new Daemon(config);
        try {
            daemon.start();
        } catch (Exception e) {
            System.err.println("sandboxd: failed to start: " + oneLine(String.valueOf(e.getMessage())));
            daemon.shutdown();
            return 1;
        }
        ShutdownSignals.onTermination(daemon::shutdown);
        daemon.awaitTermination();
        return 0;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ').strip();
    }
}
