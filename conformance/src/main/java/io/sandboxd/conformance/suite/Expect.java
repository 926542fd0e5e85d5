package io.sandboxd.conformance.suite;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.sandboxd.client.DaemonUnreachableException;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.testkit.raw.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Assertions whose failure messages tell an implementer what was expected and what came back
 * (status, code, headers, bytes). gRPC calls go through the client library, which throws on a
 * non-OK status; {@link #statusOf} turns that back into the status the checks compare.
 */
public final class Expect {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** runtime-contract §2.2: the code that goes with each status. */
    public static final Map<Integer, String> CODE_OF_STATUS = Map.of(
            400,
            "INVALID_ARGUMENT",
            401,
            "UNAUTHENTICATED",
            403,
            "PERMISSION_DENIED",
            404,
            "NOT_FOUND",
            409,
            "CONFLICT",
            412,
            "PRECONDITION_FAILED",
            507,
            "INSUFFICIENT_STORAGE",
            500,
            "INTERNAL",
            503,
            "UNAVAILABLE");

    private Expect() {}

    public static CheckFailed fail(String message) {
        return new CheckFailed(message);
    }

    public static void that(boolean condition, String message) {
        if (!condition) {
            throw new CheckFailed(message);
        }
    }

    public static void status(Reply r, int expected) {
        if (r.status() != expected) {
            throw fail(r.request() + ": expected status " + expected + ", got " + r.describe());
        }
    }

    /** Status plus a JSON error body carrying {@code code}. Returns the body. */
    public static JsonNode error(Reply r, int expectedStatus, String expectedCode) {
        status(r, expectedStatus);
        JsonNode body = errorBody(r);
        String code = body.path("code").isString() ? body.path("code").stringValue() : null;
        if (!expectedCode.equals(code)) {
            throw fail(r.request() + ": expected status " + expectedStatus + " with JSON code \"" + expectedCode
                    + "\", got code " + (code == null ? "(missing)" : "\"" + code + "\"") + " in " + r.describe());
        }
        return body;
    }

    /** runtime-contract §2.2: application/json and {code, message} both non-empty strings, code matching the status. */
    public static JsonNode errorBody(Reply r) {
        if (!r.mediaType().equals("application/json")) {
            throw fail(r.request()
                    + ": expected an error with Content-Type application/json and a {\"code\",\"message\"} body, got "
                    + r.describe());
        }
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (RuntimeException e) {
            throw fail(r.request() + ": expected a JSON error body {\"code\",\"message\"}, got invalid JSON: "
                    + r.describe());
        }
        if (body == null || !body.isObject()) {
            throw fail(r.request() + ": expected the error body to be a JSON object {\"code\",\"message\"}, got "
                    + r.describe());
        }
        for (String field : new String[] {"code", "message"}) {
            JsonNode v = body.get(field);
            if (v == null || !v.isString() || v.stringValue().isEmpty()) {
                throw fail(r.request() + ": expected error body field \"" + field + "\" to be a non-empty string, got "
                        + r.describe());
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
    public static String messageOf(Reply r) {
        try {
            JsonNode n = JSON.readTree(r.body());
            String m = n == null ? null : str(n.get("message"));
            return m != null ? m : r.bodyText();
        } catch (RuntimeException e) {
            return r.bodyText();
        }
    }

    public static JsonNode json(Reply r) {
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

    /**
     * The status a gRPC call ended with: OK, or the one its exception carries (the client's
     * {@link GrpcCallException} or a raw stub's {@link StatusRuntimeException}); a runtime that
     * cannot be reached is UNAVAILABLE.
     */
    public static Status statusOf(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (GrpcCallException e) {
            return e.status();
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        } catch (DaemonUnreachableException e) {
            return Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e);
        }
    }

    /** {@code CODE "description"}. */
    public static String describe(Status s) {
        String d = s.getDescription();
        return s.getCode() + (d == null ? "" : " \"" + d + "\"");
    }

    public static Status grpc(Status s, Status.Code expected, String call) {
        if (s.getCode() != expected) {
            throw fail(call + ": expected gRPC status " + expected + ", got " + describe(s));
        }
        return s;
    }

    /** Runs a gRPC call that must end with {@code expected}; returns its status (e.g. for the description). */
    public static Status grpc(Runnable call, Status.Code expected, String what) {
        return grpc(statusOf(call), expected, what);
    }

    public static void ok(Runnable call, String what) {
        grpc(call, Status.Code.OK, what);
    }

    /** Runs a gRPC call that must succeed; returns its value. */
    public static <T> T ok(Supplier<T> call, String what) {
        AtomicReference<T> value = new AtomicReference<>();
        grpc(() -> value.set(call.get()), Status.Code.OK, what);
        return value.get();
    }

    public static void equal(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw fail(what + ": expected " + render(expected) + ", got " + render(actual));
        }
    }

    public static void bytes(String what, byte[] expected, byte[] actual) {
        if (!Arrays.equals(expected, actual)) {
            int i = Arrays.mismatch(expected, actual);
            throw fail(what + ": expected " + expected.length + " bytes " + excerpt(expected, 80) + ", got "
                    + actual.length + " bytes " + excerpt(actual, 80) + " (first difference at offset " + i + ")");
        }
    }

    private static String render(Object o) {
        if (o instanceof String s) {
            return excerpt(s, 200);
        }
        if (o instanceof byte[] b) {
            return excerpt(b, 200);
        }
        return String.valueOf(o);
    }

    /** Bytes for humans reading a failure: printable ASCII as is, the rest escaped, cut at {@code max}. */
    public static String excerpt(byte[] b, int max) {
        return RawHttp.excerpt(b, max);
    }

    public static String excerpt(String s, int max) {
        return RawHttp.excerpt(utf8(s), max);
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
