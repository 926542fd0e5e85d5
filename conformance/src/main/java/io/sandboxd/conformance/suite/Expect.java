package io.sandboxd.conformance.suite;

import io.grpc.Status;
import io.sandboxd.conformance.client.Bytes;
import io.sandboxd.conformance.client.GrpcResult;
import io.sandboxd.conformance.client.HttpResult;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Assertions whose failure messages tell an implementer what was expected and what came back
 * (status, code, headers, bytes).
 */
public final class Expect {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** CONTRACT §2.2: the code that goes with each status. */
    public static final Map<Integer, String> CODE_OF_STATUS = Map.of(400, "INVALID_ARGUMENT", 401, "UNAUTHENTICATED",
            403, "PERMISSION_DENIED", 404, "NOT_FOUND", 409, "CONFLICT", 412, "PRECONDITION_FAILED",
            507, "INSUFFICIENT_STORAGE", 500, "INTERNAL", 503, "UNAVAILABLE");

    private Expect() {
    }

    public static CheckFailed fail(String message) {
        return new CheckFailed(message);
    }

    public static void that(boolean condition, String message) {
        if (!condition) {
            throw new CheckFailed(message);
        }
    }

    public static void status(HttpResult r, int expected) {
        if (r.status() != expected) {
            throw fail(r.request() + ": expected status " + expected + ", got " + r.describe());
        }
    }

    /** Status plus a JSON error body carrying {@code code}. Returns the body. */
    public static JsonNode error(HttpResult r, int expectedStatus, String expectedCode) {
        status(r, expectedStatus);
        JsonNode body = errorBody(r);
        String code = body.path("code").isString() ? body.path("code").stringValue() : null;
        if (!expectedCode.equals(code)) {
            throw fail(r.request() + ": expected status " + expectedStatus + " with JSON code \"" + expectedCode
                    + "\", got code " + (code == null ? "(missing)" : "\"" + code + "\"") + " in " + r.describe());
        }
        return body;
    }

    /** CONTRACT §2.2: application/json and {code, message} both non-empty strings, code matching the status. */
    public static JsonNode errorBody(HttpResult r) {
        if (!r.mediaType().equals("application/json")) {
            throw fail(r.request() + ": expected an error with Content-Type application/json and a {\"code\",\"message\"} body, got "
                    + r.describe());
        }
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (RuntimeException e) {
            throw fail(r.request() + ": expected a JSON error body {\"code\",\"message\"}, got invalid JSON: " + r.describe());
        }
        if (body == null || !body.isObject()) {
            throw fail(r.request() + ": expected the error body to be a JSON object {\"code\",\"message\"}, got " + r.describe());
        }
        for (String field : new String[]{"code", "message"}) {
            JsonNode v = body.get(field);
            if (v == null || !v.isString() || v.stringValue().isEmpty()) {
                throw fail(r.request() + ": expected error body field \"" + field + "\" to be a non-empty string, got " + r.describe());
            }
        }
        String want = CODE_OF_STATUS.get(r.status());
        if (want != null && !want.equals(body.get("code").stringValue())) {
            throw fail(r.request() + ": expected status " + r.status() + " to carry code \"" + want + "\", got \""
                    + body.get("code").stringValue() + "\" in " + r.describe());
        }
        return body;
    }

    /** The string value of a JSON node, or null when it is absent or not a string. */
    public static String str(JsonNode n) {
        return n != null && n.isString() ? n.stringValue() : null;
    }

    /** The "message" of a JSON error body, or the raw body text when it is not one. */
    public static String messageOf(HttpResult r) {
        try {
            JsonNode n = JSON.readTree(r.body());
            String m = n == null ? null : str(n.get("message"));
            return m != null ? m : r.bodyText();
        } catch (RuntimeException e) {
            return r.bodyText();
        }
    }

    public static JsonNode json(HttpResult r) {
        try {
            JsonNode n = JSON.readTree(r.body());
            if (n == null || n.isMissingNode()) {
                throw fail(r.request() + ": expected a JSON body, got " + r.describe());
            }
            return n;
        } catch (RuntimeException e) {
            if (e instanceof CheckFailed cf) {
                throw cf;
            }
            throw fail(r.request() + ": expected a JSON body, got " + r.describe());
        }
    }

    public static void grpc(GrpcResult<?> r, Status.Code expected, String call) {
        if (r.code() != expected) {
            throw fail(call + ": expected gRPC status " + expected + ", got " + r.describe());
        }
    }

    public static void ok(GrpcResult<?> r, String call) {
        grpc(r, Status.Code.OK, call);
    }

    public static void equal(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw fail(what + ": expected " + render(expected) + ", got " + render(actual));
        }
    }

    public static void bytes(String what, byte[] expected, byte[] actual) {
        if (!Arrays.equals(expected, actual)) {
            int i = Arrays.mismatch(expected, actual);
            throw fail(what + ": expected " + expected.length + " bytes " + Bytes.excerpt(expected, 80) + ", got "
                    + actual.length + " bytes " + Bytes.excerpt(actual, 80) + " (first difference at offset " + i + ")");
        }
    }

    private static String render(Object o) {
        if (o instanceof String s) {
            return Bytes.excerpt(s, 200);
        }
        if (o instanceof byte[] b) {
            return Bytes.excerpt(b, 200);
        }
        return String.valueOf(o);
    }
}
