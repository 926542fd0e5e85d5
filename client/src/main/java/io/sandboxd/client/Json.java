package io.sandboxd.client;

import java.io.InputStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The REST API's JSON bodies (openapi.yaml's schemas), read as trees; loaded only when used. */
final class Json {
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {}

    static DirectoryListing listing(InputStream in) {
        JsonNode root = MAPPER.readTree(in);
        List<FileEntry> entries = new ArrayList<>();
        for (JsonNode e : root.path("entries")) {
            entries.add(new FileEntry(
                    e.path("name").asString(),
                    e.path("size").asLong(),
                    e.path("type").asString(),
                    instant(e.path("modified_at").asString()),
                    e.path("mode").asString()));
        }
        return new DirectoryListing(root.path("path").asString(), entries);
    }

    static Health health(byte[] body) {
        JsonNode root = MAPPER.readTree(body);
        return new Health(
                root.path("status").asString(), root.path("uptime_seconds").asLong());
    }

    static Map<String, String> metadata(byte[] body) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : MAPPER.readTree(body).path("env").properties()) {
            env.put(e.getKey(), e.getValue().asString());
        }
        return env;
    }

    /** {code, message} of an error body; nulls when it is not one. */
    static String[] error(byte[] body) {
        if (body == null || body.length == 0) {
            return new String[2];
        }
        try {
            JsonNode root = MAPPER.readTree(body);
            String code = root.path("code").isString() ? root.path("code").asString() : null;
            String message =
                    root.path("message").isString() ? root.path("message").asString() : null;
            return new String[] {code, message};
        } catch (JacksonException e) {
            String text =
                    new String(body, 0, Math.min(body.length, 200), java.nio.charset.StandardCharsets.UTF_8).strip();
            return new String[] {null, text.isEmpty() ? null : text};
        }
    }

    static Instant instant(String s) {
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }
}
