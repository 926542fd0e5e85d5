package io.sandboxd.client.cli;

import io.sandboxd.client.DirectoryListing;
import io.sandboxd.client.FileEntry;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code sandboxd-cli}: the command line of the sandboxd client library. Each verb is its own
 * class, registered here as a picocli subcommand ({@link #VERBS}), with the shared
 * {@link ConnectionOptions}.
 * Exit codes: 0 ok, 1 a failure (one line on stderr naming what failed), 2 a usage error; exec
 * exits with the process's code.
 */
@CommandLine.Command(
        name = "sandboxd-cli",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = "Runs commands and moves files in a sandbox, over sandboxd's gRPC and REST APIs.",
        footer = {
            "",
            "Environment: SANDBOXD_GRPC_ADDR (host:port), SANDBOXD_REST_ADDR (URL), SANDBOXD_TOKEN.",
            "Exit codes: 0 ok, 1 failure, 2 usage error; exec, attach, wait: the process's exit code (128+N after signal N, 124 after run --timeout)."
        })
public final class Cli implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(
                spec.commandLine(),
                "missing verb (exec, run, attach, ps, wait, kill, cp, ls, rm, stat, mkdir, mv, chmod, watch, health, context)");
    }

    public static void main(String[] args) {
        // Netty registers JFR event types on first use even with no recording (~50 ms, ~1.7 MiB of
        // classes) and samples buffers for leaks; neither helps a one-shot command. -D wins.
        setDefault("io.netty.jfr.enabled", "false");
        setDefault("io.netty.leakDetection.level", "disabled");
        // A background thread's failure is one line too, never a stack trace.
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> error(t.getName(), e));
        System.exit(run(args));
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** The verbs, in the order {@code --help} lists them. */
    static final List<String> VERBS = List.of(
            "exec", "run", "attach", "ps", "wait", "kill", "cp", "ls", "rm", "watch", "stat", "mkdir", "mv", "chmod",
            "health", "context", "help");

    /** A new instance of the verb {@code name}, or null for none. */
    static Object verb(String name) {
        return switch (name) {
            case "exec" -> new ExecCommand();
            case "run" -> new RunCommand();
            case "attach" -> new AttachCommand();
            case "ps" -> new PsCommand();
            case "wait" -> new WaitCommand();
            case "kill" -> new KillCommand();
            case "cp" -> new CpCommand();
            case "ls" -> new LsCommand();
            case "rm" -> new RmCommand();
            case "watch" -> new WatchCommand();
            case "stat" -> new StatCommand();
            case "mkdir" -> new MkdirCommand();
            case "mv" -> new MvCommand();
            case "chmod" -> new ChmodCommand();
            case "health" -> new HealthCommand();
            case "context" -> new ContextCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> null;
        };
    }

    /**
     * The command line for {@code args}. picocli reads the annotations of every registered verb
     * (and the types of their fields: Jackson, the durable and code-context clients) before it
     * parses anything, which was most of a short command's CPU time; so when the first word is a
     * verb, that verb alone is registered: it parses, helps and fails exactly as it would among
     * all of them (a verb never sees its siblings). {@code help VERB}, a top-level option, an
     * unknown verb or none get every verb, for the listing and the suggestions.
     */
    static CommandLine commandLine(String... args) {
        CommandLine cl = new CommandLine(new Cli());
        String first = args.length > 0 ? args[0] : "";
        if (VERBS.contains(first) && !first.equals("help")) {
            cl.addSubcommand(verb(first));
        } else {
            for (String v : VERBS) {
                cl.addSubcommand(verb(v));
            }
        }
        return cl;
    }

    static int run(String... args) {
        CommandLine cl = commandLine(args);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            error(cmd.getCommandName(), ex);
            return 1;
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine cmd = ex.getCommandLine();
            String verb = cmd.getParent() == null ? "" : cmd.getCommandName() + ": ";
            System.err.println("sandboxd-cli: " + verb + ex.getMessage());
            System.err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
            return 2;
        });
        return cl.execute(args);
    }

    /** {@code sandboxd-cli: VERB: what failed}. */
    static void error(String verb, Throwable t) {
        System.out.flush();
        System.err.println("sandboxd-cli: " + verb + ": " + CliErrors.describe(t));
        System.err.flush();
    }

    /** A listing as the daemon's JSON schema, on one line. */
    static String toJson(DirectoryListing listing) {
        JsonMapper m = JsonMapper.builder().build();
        ObjectNode root = m.createObjectNode();
        root.put("path", listing.path());
        ArrayNode entries = root.putArray("entries");
        for (FileEntry e : listing.entries()) {
            entries.addObject()
                    .put("name", e.name())
                    .put("size", e.size())
                    .put("type", e.type())
                    .put("modified_at", DateTimeFormatter.ISO_INSTANT.format(e.modifiedAt()))
                    .put("mode", e.mode());
        }
        return m.writeValueAsString(root);
    }
}
