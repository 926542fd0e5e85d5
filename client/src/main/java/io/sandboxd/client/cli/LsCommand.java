package io.sandboxd.client.cli;

import io.sandboxd.client.DirectoryListing;
import io.sandboxd.client.FileEntry;
import io.sandboxd.client.NotADirectoryException;
import io.sandboxd.client.RestCallException;
import io.sandboxd.client.RestPaths;
import io.sandboxd.client.SandboxdClient;
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
                    + "daemon's listing schema."
        })
final class LsCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions conn;

    @Option(names = "--json", description = "Print the listing as JSON.")
    boolean json;

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
