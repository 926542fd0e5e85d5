package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps {@code openapi.yaml} true: drives the real server through every route, method and
 * status it serves, and checks each response against the document (path, method, status,
 * content type, required headers, JSON schema). Then checks the reverse: every response the
 * document describes was produced (except {@code x-not-exercised}).
 */
class OpenApiConformanceTest {
    private static Map<String, Object> spec;
    private static Path tmp;
    private static RestFixture open;
    private static RestFixture locked;
    private static final Set<String> covered = new TreeSet<>();
    private static final List<String> violations = new ArrayList<>();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void setUp() throws Exception {
        Path file = Path.of(System.getProperty("sandboxd.repoRoot", "..")).resolve("openapi.yaml");
        spec = (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file));
        tmp = Files.createTempDirectory("openapi");
        open = new RestFixture(Files.createDirectories(tmp.resolve("open")), c -> c, Map.of("SANDBOX_A", "1"));
        locked = new RestFixture(
                Files.createDirectories(tmp.resolve("locked")), c -> TestConfig.withAuthToken(c, "t0k"), Map.of());
    }

    @AfterAll
    static void tearDown() throws IOException {
        open.close();
        locked.close();
        try (var s = Files.walk(tmp)) {
            s.sorted((a, b) -> b.getNameCount() - a.getNameCount())
                    .forEach(p -> p.toFile().delete());
        }
    }

    // ------------------------------------------------------------------ the exchanges

    @Test
    void everyServedResponseIsDescribedAndEveryDescribedResponseIsServed() throws Exception {
        Path root = open.root;
        Files.createDirectories(root.resolve("dir/sub"));
        Files.writeString(root.resolve("dir/f.txt"), "0123456789");
        Files.createSymbolicLink(root.resolve("esc"), tmp);
        new ProcessBuilder("mkfifo", root.resolve("fifo").toString()).start().waitFor();
        RestFixture h = open;
        String etag = h.exchange(RawRequest.head("/v1/files/dir/f.txt")).header("ETag");

        for (String m : new String[] {"GET", "HEAD"}) {
            check(h, m, "/v1/files/", Map.of(), null);
            check(h, m, "/v1/files", Map.of(), null);
            check(h, m, "/v1/files/dir", Map.of(), null);
            check(h, m, "/v1/files/dir%2Ff.txt", Map.of(), null);
            check(h, m, "/v1/files/dir/f.txt", Map.of("Range", "bytes=0-3"), null);
            check(h, m, "/v1/files/dir/f.txt", Map.of("If-None-Match", etag), null);
            check(h, m, "/v1/files/fifo", Map.of(), null);
            check(h, m, "/v1/files/esc", Map.of(), null);
            check(h, m, "/v1/files/missing", Map.of(), null);
            check(h, m, "/v1/health", Map.of(), null);
            check(h, m, "/v1/metadata", Map.of(), null);
            check(h, m, "/metrics", Map.of(), null);
        }
        check(h, "GET", "/v1/files/dir/f.txt", Map.of("If-Match", "\"nope\""), null);
        check(h, "GET", "/v1/files/dir/f.txt", Map.of("Range", "bytes=100-"), null);

        check(h, "PUT", "/v1/files/", Map.of(), b("x"));
        check(h, "PUT", "/v1/files/new%2Ffile.txt", Map.of(), b("x"));
        check(
                h,
                "PUT",
                "/v1/files/dir/m.txt",
                Map.of("Content-Type", "multipart/form-data; boundary=B"),
                b("--B\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nmp\r\n--B--\r\n"));
        check(h, "PUT", "/v1/files/x?mode=999", Map.of(), b("x"));
        check(h, "PUT", "/v1/files/esc/x", Map.of(), b("x"));
        check(h, "PUT", "/v1/files/dir/f.txt/x", Map.of(), b("x"));
        check(h, "PUT", "/v1/files/dir/f.txt", Map.of("If-None-Match", "*"), b("x"));

        check(h, "DELETE", "/v1/files/dir?recursive=maybe", Map.of(), null);
        check(h, "DELETE", "/v1/files/dir", Map.of(), null);
        check(h, "DELETE", "/v1/files/esc%2Fx", Map.of(), null);
        check(h, "DELETE", "/v1/files/missing", Map.of(), null);
        check(h, "DELETE", "/v1/files/new/file.txt", Map.of(), null);
        check(h, "DELETE", "/v1/files/", Map.of(), null);
        check(h, "DELETE", "/v1/files/?recursive=yes", Map.of(), null);
        check(h, "DELETE", "/v1/files?recursive=true", Map.of(), null);

        check(h, "GET", "/nope", Map.of(), null);
        check(h, "POST", "/v1/files/x", Map.of(), b(""));
        check(h, "PATCH", "/v1/health", Map.of(), b(""));
        check(h, "GET", "/v1/files/%00", Map.of(), null);

        RestFixture l = locked;
        for (String m : new String[] {"GET", "HEAD"}) {
            for (String p : new String[] {"/v1/files/", "/v1/files/x", "/v1/metadata", "/metrics"}) {
                check(l, m, p, Map.of(), null);
            }
        }
        check(l, "PUT", "/v1/files/", Map.of(), b("x"));
        check(l, "PUT", "/v1/files/x", Map.of(), b("x"));
        check(l, "DELETE", "/v1/files/", Map.of(), null);
        check(l, "DELETE", "/v1/files/x", Map.of(), null);

        checkWatch(h, l);
        exerciseFileOperations(h, l);

        open.listeners.state().beginShutdown();
        check(h, "GET", "/v1/health", Map.of(), null);
        check(h, "HEAD", "/v1/health", Map.of(), null);

        assertThat(violations).isEmpty();
        assertThat(described())
                .as("described in openapi.yaml but never produced")
                .isSubsetOf(covered);
    }

    /** The watch route (runtime-contract §4.2): its errors, and a whole stream whose every event is a WatchEvent. */
    private static void checkWatch(RestFixture h, RestFixture locked) throws Exception {
        String route = "/sandboxd/v1alpha1/watch";
        Path watched = h.root.resolve("watched");
        Files.createDirectories(watched.resolve("sub"));
        Files.createSymbolicLink(h.root.resolve("watch-escape"), tmp);
        for (int i = 0; i < 70; i++) {
            Files.createDirectories(h.root.resolve("wide/d" + i));
        }
        check(h, "GET", route, Map.of(), null);
        check(h, "GET", route + "?path=/&recursive=maybe", Map.of(), null);
        check(h, "GET", route + "?path=/&cursor=-1", Map.of(), null);
        check(h, "GET", route + "?path=/", Map.of("Last-Event-ID", "x"), null);
        check(h, "GET", route + "?path=/&exclude=", Map.of(), null);
        check(h, "GET", route + "?path=/watch-escape", Map.of(), null);
        check(h, "GET", route + "?path=/nope", Map.of(), null);
        check(h, "GET", route + "?path=/wide&recursive=true", Map.of(), null);
        check(h, "POST", route + "?path=/", Map.of(), b(""));
        check(locked, "GET", route + "?path=/", Map.of(), null);
        // a stream that ends by itself: its directory goes away while it is watched
        Thread remover = new Thread(() -> {
            try {
                Thread.sleep(700);
                Files.writeString(watched.resolve("sub/f"), "x");
                Files.delete(watched.resolve("sub/f"));
                Files.delete(watched.resolve("sub"));
                Files.delete(watched);
            } catch (Exception e) {
                violations.add("watch: could not change the watched tree: " + e);
                h.watcher.close(); // ends the stream (with an error event) so the check does not hang
            }
        });
        remover.start();
        RawResponse r = h.exchange(RawRequest.get(route + "?path=/watched&recursive=true"));
        remover.join();
        check(h, "GET", route + "?path=/watched", Map.of(), null); // it is gone now: 404
        List<String> types = new ArrayList<>();
        for (String line : new String(r.body(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("data: ")) {
                JsonNode event = JSON.readTree(line.substring(6));
                validate("watch event " + line, event, ref("#/components/schemas/WatchEvent"));
                types.add(event.get("type").asString());
            }
        }
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/event-stream");
        assertThat(r.header("Cache-Control")).isEqualTo("no-cache, no-store");
        assertThat(types).contains("created", "deleted", "error");
        assertThat(types.get(types.size() - 1)).isEqualTo("error");
        covered.add("GET " + route + " 200");
    }

    /** runtime-contract §4.3: every route, status and body of the file operations. */
    private static void exerciseFileOperations(RestFixture h, RestFixture l) throws Exception {
        Path root = h.root;
        Files.deleteIfExists(root.resolve("esc"));
        Files.createSymbolicLink(root.resolve("esc"), tmp);
        Files.createDirectories(root.resolve("ops/tree/sub"));
        Files.writeString(root.resolve("ops/tree/sub/f"), "x");
        Files.createSymbolicLink(root.resolve("ops/tree/link"), Path.of("sub"));
        String fs = "/sandboxd/v1alpha1/fs/";
        check(h, "GET", fs + "stat?path=ops/tree/sub/f", Map.of(), null);
        check(h, "GET", fs + "stat?path=ops/tree/link", Map.of(), null);
        check(h, "GET", fs + "stat?path=ops%2Ftree&follow=true", Map.of(), null);
        check(h, "GET", fs + "stat?path=ops/missing", Map.of(), null);
        check(h, "GET", fs + "stat?path=esc/x&follow=true", Map.of(), null);
        check(h, "GET", fs + "stat?nope=1", Map.of(), null);
        check(h, "GET", fs + "list?path=ops&depth=3&limit=2", Map.of(), null);
        check(h, "GET", fs + "list?path=ops&depth=3", Map.of(), null);
        check(h, "GET", fs + "list?path=ops/missing", Map.of(), null);
        check(h, "GET", fs + "list?path=esc", Map.of(), null);
        check(h, "GET", fs + "list?path=ops&cursor=bad", Map.of(), null);
        check(h, "POST", fs + "mkdir?path=ops/new&mode=0700", Map.of(), b(""));
        check(h, "POST", fs + "mkdir?path=ops/new&parents=true", Map.of(), b(""));
        check(h, "POST", fs + "mkdir?path=ops/new", Map.of(), b(""));
        check(h, "POST", fs + "mkdir?path=ops/no/such", Map.of(), b(""));
        check(h, "POST", fs + "mkdir?path=esc/x", Map.of(), b(""));
        check(h, "POST", fs + "mkdir?path=x&mode=4755", Map.of(), b(""));
        check(h, "POST", fs + "move?from=ops/new&to=ops/moved", Map.of(), b(""));
        check(h, "POST", fs + "move?from=ops/moved&to=ops/tree", Map.of(), b(""));
        check(h, "POST", fs + "move?from=ops/tree&to=ops/tree/sub/in", Map.of(), b(""));
        check(h, "POST", fs + "move?from=ops/missing&to=ops/x", Map.of(), b(""));
        check(h, "POST", fs + "move?from=ops/moved&to=esc/x", Map.of(), b(""));
        check(h, "POST", fs + "chmod?path=ops/moved&mode=0750", Map.of(), b(""));
        check(h, "POST", fs + "chmod?path=ops/moved&mode=6755", Map.of(), b(""));
        check(h, "POST", fs + "chmod?path=ops/missing&mode=0750", Map.of(), b(""));
        check(h, "POST", fs + "chmod?path=esc&mode=0750", Map.of(), b(""));
        check(h, "GET", fs + "archive?path=ops/tree", Map.of(), null);
        check(h, "GET", fs + "archive?path=ops/tree&gzip=true", Map.of(), null);
        check(h, "GET", fs + "archive?path=ops/tree/sub/f", Map.of(), null);
        check(h, "GET", fs + "archive?path=ops/missing", Map.of(), null);
        check(h, "GET", fs + "archive?path=esc", Map.of(), null);
        byte[] tar = new RawTar().dir("d", 0755).file("d/f", "x").bytes();
        check(h, "PUT", fs + "archive?path=ops/up", Map.of("Content-Type", "application/x-tar"), tar);
        check(h, "PUT", fs + "archive?path=ops/up", Map.of("Content-Type", "application/x-tar"), tar);
        check(
                h,
                "PUT",
                fs + "archive?path=ops/bad",
                Map.of(),
                new RawTar().file("../x", "x").bytes());
        check(h, "PUT", fs + "archive?path=ops/no/parent", Map.of(), tar);
        check(h, "PUT", fs + "archive?path=esc/x", Map.of(), tar);
        check(h, "DELETE", fs + "archive?path=ops", Map.of(), null);
        check(h, "GET", fs + "unknown", Map.of(), null);
        for (String[] r : new String[][] {
            {"GET", "stat?path="},
            {"GET", "list?path="},
            {"POST", "mkdir?path=x"},
            {"POST", "move?from=a&to=b"},
            {"POST", "chmod?path=a&mode=0700"},
            {"GET", "archive?path="},
            {"PUT", "archive?path=x"}
        }) {
            check(l, r[0], fs + r[1], Map.of(), r[0].equals("GET") ? null : b(""));
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ checking

    @SuppressWarnings("unchecked")
    private static Set<String> described() {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Object> paths = (Map<String, Object>) spec.get("paths");
        for (Map.Entry<String, Object> p : paths.entrySet()) {
            for (Map.Entry<String, Object> op : ((Map<String, Object>) p.getValue()).entrySet()) {
                if (!List.of("get", "head", "put", "delete", "post", "patch").contains(op.getKey())) {
                    continue;
                }
                Map<String, Object> responses =
                        (Map<String, Object>) ((Map<String, Object>) op.getValue()).get("responses");
                for (String status : responses.keySet()) {
                    out.add(op.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey() + " " + status);
                }
            }
        }
        out.removeAll((List<String>) spec.getOrDefault("x-not-exercised", List.of()));
        return out;
    }

    static String template(String rawTarget) {
        String path = rawTarget.split("\\?", 2)[0];
        if (path.equals("/v1/files") || path.equals("/v1/files/")) {
            return "/v1/files/";
        }
        if (path.startsWith("/v1/files/")) {
            return "/v1/files/{path}";
        }
        return path;
    }

    @SuppressWarnings("unchecked")
    private static void check(RestFixture http, String method, String target, Map<String, String> headers, byte[] body)
            throws IOException {
        RawRequest request = RawRequest.of(method, target);
        for (Map.Entry<String, String> h : headers.entrySet()) {
            request = request.header(h.getKey(), h.getValue());
        }
        RawResponse r = http.exchange(body != null ? request.body(body) : request.withoutContentLength());
        String where = method + " " + target + " -> " + r.status();
        String status = String.valueOf(r.status());
        Map<String, Object> paths = (Map<String, Object>) spec.get("paths");
        String tpl = template(target);
        Map<String, Object> pathItem = (Map<String, Object>) paths.get(tpl);
        Map<String, Object> response;
        if (pathItem == null) {
            if (!((List<Integer>) spec.get("x-unmatched-route-statuses")).contains(r.status())) {
                violations.add(where + ": unmatched route with undeclared status");
            }
            response = ref("#/components/responses/Error");
        } else {
            Map<String, Object> op = (Map<String, Object>) pathItem.get(method.toLowerCase(Locale.ROOT));
            if (op == null) {
                if (!((List<Integer>) spec.get("x-wrong-method-statuses")).contains(r.status())) {
                    violations.add(where + ": undeclared method with status other than 405");
                }
                if (r.header("Allow") == null) {
                    violations.add(where + ": 405 without Allow");
                }
                response = ref("#/components/responses/Error");
            } else {
                Map<String, Object> responses = (Map<String, Object>) op.get("responses");
                response = (Map<String, Object>) responses.get(status);
                if (response == null) {
                    violations.add(where + ": status not in openapi.yaml");
                    return;
                }
                covered.add(method + " " + tpl + " " + status);
            }
        }
        response = deref(response);
        Map<String, Object> hdrs = (Map<String, Object>) response.getOrDefault("headers", Map.of());
        for (Map.Entry<String, Object> e : hdrs.entrySet()) {
            Map<String, Object> hd = (Map<String, Object>) e.getValue();
            String v = r.header(e.getKey());
            if (Boolean.TRUE.equals(hd.get("required")) && v == null) {
                violations.add(where + ": missing required header " + e.getKey());
            }
            if (v != null) {
                validateString(where + " header " + e.getKey(), v, deref((Map<String, Object>) hd.get("schema")));
            }
        }
        Map<String, Object> content = (Map<String, Object>) response.get("content");
        String ct = r.header("Content-Type");
        if (content == null) {
            if (r.body().length > 0) {
                violations.add(where + ": body where none is described");
            }
            return;
        }
        String mediaType = ct == null ? null : ct.split(";")[0].trim();
        if (mediaType == null || !content.containsKey(mediaType)) {
            violations.add(where + ": content type " + ct + " not in " + content.keySet());
            return;
        }
        if (method.equals("HEAD")) {
            if (r.body().length > 0) {
                violations.add(where + ": HEAD with a body");
            }
            return;
        }
        Map<String, Object> media = (Map<String, Object>) content.get(mediaType);
        Map<String, Object> schema = media == null ? null : (Map<String, Object>) media.get("schema");
        if (schema != null && mediaType.equals("application/json")) {
            JsonNode node = JSON.readTree(r.body());
            validate(where, node, deref(schema));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> ref(String ref) {
        Object cur = spec;
        for (String part : ref.substring(2).split("/")) {
            cur = ((Map<String, Object>) cur).get(part);
        }
        return (Map<String, Object>) cur;
    }

    private static Map<String, Object> deref(Map<String, Object> m) {
        while (m != null && m.containsKey("$ref")) {
            m = ref((String) m.get("$ref"));
        }
        return m;
    }

    @SuppressWarnings("unchecked")
    static void validate(String where, JsonNode node, Map<String, Object> schema) {
        schema = deref(schema);
        String type = (String) schema.get("type");
        if (type == null) {
            return;
        }
        switch (type) {
            case "object" -> {
                if (!node.isObject()) {
                    violations.add(where + ": expected object, got " + node);
                    return;
                }
                Map<String, Object> props = (Map<String, Object>) schema.getOrDefault("properties", Map.of());
                for (String req : (List<String>) schema.getOrDefault("required", List.of())) {
                    if (!node.has(req)) {
                        violations.add(where + ": missing property " + req);
                    }
                }
                Object additional = schema.get("additionalProperties");
                Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (props.containsKey(e.getKey())) {
                        validate(where + "." + e.getKey(), e.getValue(), (Map<String, Object>) props.get(e.getKey()));
                    } else if (Boolean.FALSE.equals(additional)) {
                        violations.add(where + ": undeclared property " + e.getKey());
                    } else if (additional instanceof Map<?, ?> a) {
                        validate(where + "." + e.getKey(), e.getValue(), (Map<String, Object>) a);
                    }
                }
            }
            case "array" -> {
                if (!node.isArray()) {
                    violations.add(where + ": expected array");
                    return;
                }
                for (JsonNode item : node) {
                    validate(where + "[]", item, (Map<String, Object>) schema.get("items"));
                }
            }
            case "string" -> {
                if (!node.isString()) {
                    violations.add(where + ": expected string, got " + node);
                    return;
                }
                validateString(where, node.asString(), schema);
            }
            case "integer" -> {
                if (!node.isIntegralNumber()) {
                    violations.add(where + ": expected integer, got " + node);
                    return;
                }
                Object min = schema.get("minimum");
                if (min != null && node.asLong() < ((Number) min).longValue()) {
                    violations.add(where + ": below minimum");
                }
            }
            default -> violations.add(where + ": schema type " + type + " not supported by this checker");
        }
    }

    @SuppressWarnings("unchecked")
    static void validateString(String where, String v, Map<String, Object> schema) {
        if (schema == null) {
            return;
        }
        List<Object> en = (List<Object>) schema.get("enum");
        if (en != null && !en.contains(v)) {
            violations.add(where + ": " + v + " not in " + en);
        }
        Object pattern = schema.get("pattern");
        if (pattern != null && !Pattern.compile((String) pattern).matcher(v).find()) {
            violations.add(where + ": " + v + " does not match " + pattern);
        }
        Object minLength = schema.get("minLength");
        if (minLength != null && v.length() < ((Number) minLength).intValue()) {
            violations.add(where + ": shorter than " + minLength);
        }
    }
}
