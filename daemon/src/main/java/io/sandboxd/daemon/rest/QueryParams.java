package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The query of an extension request (runtime-contract §4), parsed from the raw query string
 * and decoded once into bytes: form encoding ({@code +} is a space, {@code %XX} any byte), so a
 * {@code path=} value names any file, UTF-8 or not, exactly as {@code /v1/files/{path}} does
 * ({@link RawPath#decode}). Each route declares the names it takes: any other is a 400 naming
 * it, as is a single-valued name given twice, so a typo never silently falls back to a default.
 */
final class QueryParams {
    private final Map<String, List<byte[]>> values;

    private QueryParams(Map<String, List<byte[]>> values) {
        this.values = values;
    }

    /** @param allowed the parameter names the route takes */
    static QueryParams of(Context ctx, Set<String> allowed) throws SandboxException {
        return parse(ctx.req().getQueryString(), allowed);
    }

    static QueryParams parse(String rawQuery, Set<String> allowed) throws SandboxException {
        Map<String, List<byte[]>> values = new LinkedHashMap<>();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = new String(decode(eq < 0 ? pair : pair.substring(0, eq)), StandardCharsets.UTF_8);
                byte[] value = eq < 0 ? new byte[0] : decode(pair.substring(eq + 1));
                if (!allowed.contains(name)) {
                    throw new SandboxException(
                            ErrorKind.INVALID_ARGUMENT,
                            "unknown query parameter \"" + shorten(name) + "\"; this route takes "
                                    + String.join(", ", new java.util.TreeSet<>(allowed)));
                }
                values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
        }
        return new QueryParams(values);
    }

    private static byte[] decode(String s) throws SandboxException {
        return RawPath.decode(s.replace('+', ' '));
    }

    /** The value of a single-valued parameter, if given (possibly empty). */
    Optional<byte[]> bytes(String name) throws SandboxException {
        List<byte[]> v = values.get(name);
        if (v == null) {
            return Optional.empty();
        }
        if (v.size() > 1) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "query parameter \"" + name + "\" is given more than once");
        }
        return Optional.of(v.get(0));
    }

    /** Every value of a repeatable parameter, in order. */
    List<byte[]> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /** A path parameter: required, bytes (any name, UTF-8 or not); empty means the root. */
    byte[] path(String name) throws SandboxException {
        return bytes(name)
                .orElseThrow(() -> new SandboxException(
                        ErrorKind.INVALID_ARGUMENT, "query parameter \"" + name + "\" is required"));
    }

    /** A text parameter, if given; it must be UTF-8. */
    Optional<String> string(String name) throws SandboxException {
        Optional<byte[]> b = bytes(name);
        if (b.isEmpty()) {
            return Optional.empty();
        }
        if (!io.sandboxd.daemon.fs.Utf8.isValid(b.get())) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "query parameter \"" + name + "\" must be UTF-8 text");
        }
        return Optional.of(new String(b.get(), StandardCharsets.UTF_8));
    }

    /** {@code true} or {@code false}; absent or empty is {@code dflt}. */
    boolean bool(String name, boolean dflt) throws SandboxException {
        String v = string(name).orElse("");
        return switch (v) {
            case "" -> dflt;
            case "true" -> true;
            case "false" -> false;
            default ->
                throw new SandboxException(
                        ErrorKind.INVALID_ARGUMENT,
                        "query parameter \"" + name + "\" must be true or false (got \"" + shorten(v) + "\")");
        };
    }

    /** A decimal integer in {@code [min, max]}; absent or empty is {@code dflt}. */
    long integer(String name, long dflt, long min, long max) throws SandboxException {
        String v = string(name).orElse("");
        if (v.isEmpty()) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            n = Long.MIN_VALUE;
        }
        if (n < min || n > max) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT,
                    "query parameter \"" + name + "\" must be an integer in " + min + ".." + max + " (got \""
                            + shorten(v) + "\")");
        }
        return n;
    }

    private static String shorten(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
