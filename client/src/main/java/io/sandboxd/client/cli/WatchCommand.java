package io.sandboxd.client.cli;

import io.sandboxd.client.FileWatch;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.WatchEvent;
import io.sandboxd.client.WatchOptions;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code watch}: follows a sandbox directory's (or file's) changes until interrupted, one line per
 * event (runtime-contract §4.2). A broken connection is resumed after the last event printed.
 */
@CommandLine.Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Follows changes below a sandbox directory (or to one file) until interrupted, one line per event: "
                    + "type, entry type, path ('OLD -> NEW' for a move). A lost connection is resumed after the "
                    + "last event printed, so none is missed or repeated.",
            "'resync' means events were lost (the daemon's queue overflowed, or they are no longer retained): "
                    + "list the tree again. An error (a limit, the path was deleted) ends the watch with exit 1.",
            "--json prints each event as the daemon's JSON, one object per line: "
                    + "{\"seq\",\"type\",\"path\",\"entry\",\"size\",\"modified_at\",...}; seq is what --cursor takes."
        },
        footer = {"", "Example: sandboxd-cli watch --recursive --exclude .git --exclude node_modules :/work"})
final class WatchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions conn;

    @Option(names = "--json", description = "Print every event as one JSON object per line.")
    boolean json;

    @Option(names = "--recursive", description = "Watch every directory below too.")
    boolean recursive;

    @Option(
            names = "--cursor",
            paramLabel = "N",
            description = "Start after event N (a seq printed by --json) instead of now.")
    Long cursor;

    @Option(
            names = "--exclude",
            paramLabel = "GLOB",
            description = "Leave out names (.git, node_modules, *.log) or, with a '/', paths below the watched "
                    + "directory (build/out); repeatable.")
    List<String> excludes = new ArrayList<>();

    @Parameters(arity = "1", paramLabel = ":PATH", description = "Sandbox directory or file (the ':' is optional).")
    String path;

    @Override
    public Integer call() {
        if (cursor != null && cursor < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cursor must be >= 0");
        }
        WatchOptions options = WatchOptions.defaults().recursive(recursive).exclude(excludes.toArray(String[]::new));
        if (cursor != null) {
            options = options.cursor(cursor);
        }
        PrintStream out = System.out;
        try (SandboxdClient client = conn.client();
                FileWatch w = client.watch(path.startsWith(":") ? path.substring(1) : path, options)) {
            for (WatchEvent e; (e = w.next()) != null; ) {
                out.println(json ? e.json() : line(e));
                out.flush();
                if (out.checkError()) {
                    return 128 + 13; // stdout is a closed pipe: end like a pipeline would
                }
                if (e.isError() && !"shutdown".equals(e.reason())) {
                    Cli.error("watch", new io.sandboxd.client.SandboxdException(e.message()));
                    return 1;
                }
            }
        }
        return 0;
    }

    static String line(WatchEvent e) {
        return switch (e.type()) {
            case "resync" ->
                String.format(
                        "%-10s %-9s %s (%s): events were lost, list it again", "resync", "", e.path(), e.reason());
            case "error" -> String.format("%-10s %-9s %s: %s", "error", "", e.path(), e.message());
            case "moved" -> String.format("%-10s %-9s %s -> %s", "moved", e.entry(), e.oldPath(), e.path());
            default -> String.format("%-10s %-9s %s", e.type(), e.entry(), e.path());
        };
    }
}
