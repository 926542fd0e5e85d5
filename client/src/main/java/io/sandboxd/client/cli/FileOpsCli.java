package io.sandboxd.client.cli;

import io.sandboxd.client.EntryStat;
import io.sandboxd.client.TreeEntry;
import java.time.format.DateTimeFormatter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** What the file-operation verbs print (runtime-contract §4.3): the daemon's JSON field names, or one line. */
final class FileOpsCli {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private FileOpsCli() {}

    /** {@code :a/b} or {@code a/b} → {@code a/b}. */
    static String remote(String arg) {
        return arg.startsWith(":") ? arg.substring(1) : arg;
    }

    static String json(EntryStat s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("path", s.path());
        putIf(n, "path_encoded", s.pathEncoded());
        n.put("type", s.type()).put("size", s.size()).put("mode", s.mode());
        n.put("modified_at", DateTimeFormatter.ISO_INSTANT.format(s.modifiedAt()));
        putIf(n, "etag", s.etag());
        putIf(n, "link_target", s.linkTarget());
        putIf(n, "link_resolves", s.linkResolves());
        return JSON.writeValueAsString(n);
    }

    static ObjectNode json(TreeEntry e) {
        ObjectNode n = JSON.createObjectNode();
        n.put("path", e.path());
        putIf(n, "path_encoded", e.pathEncoded());
        n.put("type", e.type()).put("size", e.size()).put("mode", e.mode());
        n.put("modified_at", DateTimeFormatter.ISO_INSTANT.format(e.modifiedAt()));
        putIf(n, "etag", e.etag());
        putIf(n, "link_target", e.linkTarget());
        putIf(n, "list_error", e.listError());
        return n;
    }

    static JsonMapper mapper() {
        return JSON;
    }

    private static void putIf(ObjectNode n, String field, String value) {
        if (value != null) {
            n.put(field, value);
        }
    }

    /** {@code drwxr-xr-x}-style: a type letter and the nine permission bits (special bits as s/t). */
    static String modeString(String type, String octal) {
        int bits;
        try {
            bits = Integer.parseInt(octal, 8);
        } catch (NumberFormatException x) {
            bits = 0;
        }
        char t =
                switch (type) {
                    case "directory" -> 'd';
                    case "symlink" -> 'l';
                    case "fifo" -> 'p';
                    case "socket" -> 's';
                    case "char_device" -> 'c';
                    case "block_device" -> 'b';
                    default -> '-';
                };
        StringBuilder sb = new StringBuilder().append(t);
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            sb.append((bits & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        if ((bits & 01000) != 0) {
            sb.setCharAt(9, (bits & 1) != 0 ? 't' : 'T');
        }
        return sb.toString();
    }

    /** One line per entry: mode, size, time, path ('/' after directories, '-> target' after links). */
    static String line(String type, String mode, long size, java.time.Instant mtime, String path, String link) {
        return String.format(
                "%s %12d %s %s%s",
                modeString(type, mode),
                size,
                DateTimeFormatter.ISO_INSTANT.format(mtime.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)),
                path,
                "directory".equals(type) ? "/" : link != null ? " -> " + link : "");
    }
}
