package io.sandboxd.client.cli;

import io.sandboxd.client.DirectoryListing;
import io.sandboxd.client.FileEntry;
import io.sandboxd.client.NotADirectoryException;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.RestPaths;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.client.TreeEntry;
import java.io.IOException;
import java.io.PrintStream;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ls}: a directory's entries, or one file's. */
@CommandLine.Command(
        name = "ls",
        mixinStandardHelpOptions = true,
        versionProvider = VersionInfo.class,
        description = {
            "Lists a sandbox directory (default: the root), one entry per line: mode, size, "
                    + "modification time (UTC), name ('/' after directories). For a file, its own line.",
            "--json prints {\"path\",\"entries\":[{\"name\",\"size\",\"type\",\"modified_at\",\"mode\"}]}, the "
                    + "daemon's listing schema.",
            "--depth N lists N levels deep (1: the directory's own entries), depth-first, paths relative to the "
                    + "directory, symlinks as themselves (never entered), fetched a page at a time; with --json one "
                    + "object {\"path\",\"entries\":[{\"path\",\"type\",\"size\",\"mode\",\"modified_at\",...}]}."
        })
final class LsCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "--json", description = "Print the listing as JSON.")
    boolean json;

    @Option(names = "--depth", paramLabel = "N", description = "List N levels deep (1..32).")
    Integer depth;

    @Parameters(arity = "0..1", paramLabel = ":PATH", description = "Sandbox directory or file (the ':' is optional).")
    String path = ":";

    @Override
    public Integer call() throws IOException {
        try (SandboxdClient client = conn.client()) {
            return run(client);
        }
    }

    private int run(SandboxdClient client) throws IOException {
        String p = path.startsWith(":") ? path.substring(1) : path;
        if (depth != null) {
            return deep(client, p);
        }
        DirectoryListing listing;
        try {
            listing = client.list(p);
        } catch (NotADirectoryException e) {
            listing = fileAsListing(client, p);
        }
        PrintStream out = System.out;
        if (json) {
            out.println(Cli.toJson(listing));
        } else {
            for (FileEntry e : listing.entries()) {
                out.println(line(e));
            }
        }
        out.flush();
        return 0;
    }

    /** The deep listing, streamed page by page to the output (one JSON object with --json). */
    private int deep(SandboxdClient client, String p) {
        if (depth < 1 || depth > 32) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--depth must be 1..32, got " + depth);
        }
        PrintStream out = System.out;
        if (json) {
            tools.jackson.databind.node.ObjectNode root = FileOpsCli.mapper().createObjectNode();
            root.put("path", RestPaths.display(p));
            tools.jackson.databind.node.ArrayNode entries = root.putArray("entries");
            for (TreeEntry e : client.files().walk(p, depth)) {
                entries.add(FileOpsCli.json(e));
            }
            out.println(FileOpsCli.mapper().writeValueAsString(root));
        } else {
            for (TreeEntry e : client.files().walk(p, depth)) {
                out.println(FileOpsCli.line(e.type(), e.mode(), e.size(), e.modifiedAt(), e.path(), e.linkTarget()));
            }
        }
        out.flush();
        return 0;
    }

    /** A file's entry, from its directory's listing (which has its mode and time). */
    private static DirectoryListing fileAsListing(SandboxdClient client, String p) {
        String shown = RestPaths.display(p);
        int slash = shown.lastIndexOf('/');
        String name = shown.substring(slash + 1);
        DirectoryListing parent = client.list(shown.substring(0, slash));
        List<FileEntry> one =
                parent.entries().stream().filter(e -> e.name().equals(name)).toList();
        if (one.isEmpty()) {
            throw new RestCallException("GET", shown, 404, "NOT_FOUND", null, null);
        }
        return new DirectoryListing(parent.path(), one);
    }

    static String line(FileEntry e) {
        return String.format(
                "%s %12d %s %s%s",
                modeString(e),
                e.size(),
                DateTimeFormatter.ISO_INSTANT.format(e.modifiedAt()),
                e.name(),
                e.isDirectory() ? "/" : "");
    }

    /** {@code 0755} of a directory → {@code drwxr-xr-x}. */
    static String modeString(FileEntry e) {
        int bits;
        try {
            bits = Integer.parseInt(e.mode(), 8);
        } catch (NumberFormatException x) {
            bits = 0;
        }
        StringBuilder sb = new StringBuilder(e.isDirectory() ? "d" : "-");
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            sb.append((bits & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        return sb.toString();
    }
}
