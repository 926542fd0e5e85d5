package io.sandboxd.conformance.fake;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A small, test-only REST side of a runtime over a real directory: enough of runtime-contract §2 for the
 * suite's REST checks to pass, plus switches that break one behaviour at a time.
 */
final class FakeRest implements AutoCloseable {
    private final HttpServer server;
    private final Path root;
    private final Set<Breakage> broken;

    FakeRest(Path root, Set<Breakage> broken) throws IOException {
        this.root = root.toRealPath();
        this.broken = broken;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-rest");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String raw = ex.getRequestURI().getRawPath();
            String query = ex.getRequestURI().getRawQuery();
            String method = ex.getRequestMethod();
            if (raw.equals("/v1/health")) {
                json(ex, 200, "{\"status\":\"ok\",\"uptime_seconds\":1}");
            } else if (raw.startsWith("/v1/files/")) {
                files(ex, method, raw.substring("/v1/files/".length()), query == null ? "" : query);
            } else {
                error(ex, 404, "NOT_FOUND", "no such route");
            }
        } catch (RuntimeException e) {
            error(ex, 500, "INTERNAL", e.toString());
        }
    }

    private void files(HttpExchange ex, String method, String rawRel, String query) throws IOException {
        if (broken.contains(Breakage.ENCODED_SLASH_REJECTED)
                && rawRel.toUpperCase().contains("%2F")) {
            error(ex, 400, "INVALID_ARGUMENT", "encoded slash");
            return;
        }
        String rel = decode(rawRel);
        while (rel.startsWith("/")) {
            rel = rel.substring(1);
        }
        Path p = root.resolve(rel).normalize();
        if (!p.startsWith(root)) {
            error(ex, 403, "PERMISSION_DENIED", "path escapes the root");
            return;
        }
        switch (method) {
            case "GET", "HEAD" -> get(ex, p, "/" + rel, method.equals("HEAD"));
            case "PUT" -> put(ex, p, query);
            case "DELETE" -> delete(ex, p, query);
            default -> {
                ex.getResponseHeaders().set("Allow", "DELETE, GET, HEAD, PUT");
                error(ex, 405, "INVALID_ARGUMENT", "method not allowed");
            }
        }
    }

    private void get(HttpExchange ex, Path p, String requested, boolean head) throws IOException {
        if (!Files.exists(p)) {
            if (head && broken.contains(Breakage.HEAD_200_ON_MISSING)) {
                ex.sendResponseHeaders(200, -1);
                return;
            }
            int status = broken.contains(Breakage.MISSING_IS_400) ? 400 : 404;
            error(ex, status, status == 400 ? "INVALID_ARGUMENT" : "NOT_FOUND", "path does not exist");
            return;
        }
        if (Files.isDirectory(p)) {
            StringBuilder sb =
                    new StringBuilder("{\"path\":").append(q(requested)).append(",\"entries\":[");
            List<Path> children = new ArrayList<>();
            try (Stream<Path> s = Files.list(p)) {
                s.forEach(children::add);
            }
            Comparator<Path> byName = (a, b) -> java.util.Arrays.compareUnsigned(
                    a.getFileName().toString().getBytes(StandardCharsets.UTF_8),
                    b.getFileName().toString().getBytes(StandardCharsets.UTF_8));
            children.sort(broken.contains(Breakage.UNSORTED_LISTING) ? byName.reversed() : byName);
            boolean first = true;
            for (Path c : children) {
                if (!Files.exists(c)) {
                    continue;
                }
                Instant mtime = Files.getLastModifiedTime(c).toInstant();
                String when = broken.contains(Breakage.FRACTIONAL_TIMESTAMPS)
                        ? DateTimeFormatter.ISO_INSTANT.format(mtime.plusNanos(mtime.getNano() == 0 ? 123_000_000 : 0))
                        : DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
                                .withZone(ZoneOffset.UTC)
                                .format(mtime.truncatedTo(ChronoUnit.SECONDS));
                sb.append(first ? "" : ",")
                        .append("{\"name\":")
                        .append(q(c.getFileName().toString()))
                        .append(",\"size\":")
                        .append(Files.size(c))
                        .append(",\"type\":\"")
                        .append(Files.isDirectory(c) ? "directory" : "file")
                        .append("\",\"modified_at\":\"")
                        .append(when)
                        .append("\",\"mode\":\"")
                        .append(mode(c))
                        .append("\"}");
                first = false;
            }
            byte[] body = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            send(ex, 200, body, head);
            return;
        }
        byte[] body = Files.readAllBytes(p);
        ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
        ex.getResponseHeaders()
                .set(
                        "Last-Modified",
                        DateTimeFormatter.RFC_1123_DATE_TIME
                                .withZone(ZoneOffset.UTC)
                                .format(Files.getLastModifiedTime(p).toInstant().truncatedTo(ChronoUnit.SECONDS)));
        send(ex, 200, body, head);
    }

    private void put(HttpExchange ex, Path p, String query) throws IOException {
        String mode = param(query, "mode");
        if (mode != null && !mode.matches("0[0-7]{3}")) {
            error(ex, 400, "INVALID_ARGUMENT", "mode must match ^0[0-7]{3}$");
            return;
        }
        if (Files.isDirectory(p)) {
            error(ex, 400, "INVALID_ARGUMENT", "target path is a directory");
            return;
        }
        byte[] body = ex.getRequestBody().readAllBytes();
        Files.createDirectories(p.getParent());
        Path tmp = Files.createTempFile(p.getParent(), ".fake-tmp-", "");
        Files.write(tmp, body);
        String m = mode == null || broken.contains(Breakage.MODE_IGNORED) ? "0644" : mode;
        Files.setPosixFilePermissions(tmp, perms(m));
        Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        ex.sendResponseHeaders(broken.contains(Breakage.PUT_201) ? 201 : 204, -1);
    }

    private void delete(HttpExchange ex, Path p, String query) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            error(ex, 404, "NOT_FOUND", "path does not exist");
            return;
        }
        String rec = param(query, "recursive");
        if (rec != null && !rec.equals("true") && !rec.equals("false")) {
            error(ex, 400, "INVALID_ARGUMENT", "recursive must be true or false");
            return;
        }
        if (p.equals(root) && !"true".equals(rec)) {
            error(ex, 409, "CONFLICT", "cannot delete the root");
            return;
        }
        try {
            if ("true".equals(rec) && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> s = Files.walk(p)) {
                    for (Path c : s.sorted(Comparator.reverseOrder()).toList()) {
                        if (!c.equals(root)) {
                            Files.delete(c);
                        }
                    }
                }
            } else {
                Files.delete(p);
            }
        } catch (DirectoryNotEmptyException e) {
            error(ex, 409, "CONFLICT", "directory is not empty");
            return;
        }
        ex.sendResponseHeaders(204, -1);
    }

    private static void json(HttpExchange ex, int status, String body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "application/json");
        send(
                ex,
                status,
                body.getBytes(StandardCharsets.UTF_8),
                ex.getRequestMethod().equals("HEAD"));
    }

    private static String mode(Path p) throws IOException {
        int bits = 0;
        for (PosixFilePermission perm : Files.getPosixFilePermissions(p)) {
            bits |= 1 << (8 - perm.ordinal());
        }
        return String.format("%04o", bits);
    }

    private static Set<PosixFilePermission> perms(String mode) {
        int bits = Integer.parseInt(mode, 8);
        StringBuilder sb = new StringBuilder();
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            sb.append((bits & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        return PosixFilePermissions.fromString(sb.toString());
    }

    private void error(HttpExchange ex, int status, String code, String message) throws IOException {
        if (broken.contains(Breakage.NON_JSON_ERRORS)) {
            ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            send(
                    ex,
                    status,
                    (message + "\n").getBytes(StandardCharsets.UTF_8),
                    ex.getRequestMethod().equals("HEAD"));
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "application/json");
        send(
                ex,
                status,
                ("{\"code\":" + q(code) + ",\"message\":" + q(message) + "}").getBytes(StandardCharsets.UTF_8),
                ex.getRequestMethod().equals("HEAD"));
    }

    private static void send(HttpExchange ex, int status, byte[] body, boolean head) throws IOException {
        if (head) {
            ex.getResponseHeaders().set("Content-Length", String.valueOf(body.length));
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(body);
        }
    }

    static String param(String query, String name) {
        for (String kv : query.split("&")) {
            int eq = kv.indexOf('=');
            if (eq > 0 && kv.substring(0, eq).equals(name)) {
                return decode(kv.substring(eq + 1));
            }
        }
        return null;
    }

    /** Percent-decoding exactly once; '+' stays '+'. */
    static String decode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '%' && i + 2 < b.length) {
                out.write(Integer.parseInt(new String(b, i + 1, 2, StandardCharsets.US_ASCII), 16));
                i += 2;
            } else {
                out.write(b[i]);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    static String q(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
