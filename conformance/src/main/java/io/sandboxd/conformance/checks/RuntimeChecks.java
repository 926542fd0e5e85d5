package io.sandboxd.conformance.checks;

import static io.sandboxd.conformance.suite.CheckId.*;
import static io.sandboxd.conformance.suite.Expect.fail;
import static io.sandboxd.conformance.suite.Paths.enc;

import io.grpc.Status.Code;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.sandboxd.client.Command;
import io.sandboxd.client.GrpcCallException;
import io.sandboxd.client.SandboxdClient;
import io.sandboxd.conformance.suite.Check;
import io.sandboxd.conformance.suite.CheckContext;
import io.sandboxd.conformance.suite.CheckId;
import io.sandboxd.conformance.suite.CheckSkipped;
import io.sandboxd.conformance.suite.Expect;
import io.sandboxd.conformance.suite.Reply;
import io.sandboxd.conformance.suite.Rest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/** Checks of runtime-contract §2.6 (health, metadata, metrics) and §3 (access token). */
public final class RuntimeChecks {
    /** Upstream withholds names containing any of these (substring, case-insensitive). */
    static final List<String> UPSTREAM_CREDENTIAL_SUBSTRINGS =
            List.of("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CRED", "KEY", "AUTH", "BEARER", "PRIVATE", "CERT");
    /** runtime-contract §2.6: withheld when one of these is a whole '_'-separated word of the name. */
    static final List<String> CREDENTIAL_WORDS =
            List.of("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "KEY", "AUTH", "CERT", "PRIVATE");

    private RuntimeChecks() {}

    public static void register(Map<CheckId, Check> m) {
        m.put(RT_HEALTH_001, RuntimeChecks::health001);
        m.put(RT_META_001, ctx -> metadata(ctx));
        m.put(RT_META_002, RuntimeChecks::meta002);
        m.put(RT_META_003, RuntimeChecks::meta003);
        m.put(RT_METRICS_001, RuntimeChecks::metrics001);
        m.put(AUTH_001, ctx -> restAuth(ctx, null));
        m.put(AUTH_002, ctx -> restAuth(ctx, token(ctx) + "-wrong"));
        m.put(AUTH_003, ctx -> {
            Reply r = ctx.rest().withToken(null).get("/v1/health");
            Expect.status(r, 200);
        });
        m.put(AUTH_004, RuntimeChecks::auth004);
        m.put(AUTH_005, RuntimeChecks::auth005);
    }

    static void health001(CheckContext ctx) throws Exception {
        Reply r = ctx.rest().get("/v1/health");
        Expect.status(r, 200);
        Expect.equal(r.request() + ": Content-Type", "application/json", r.mediaType());
        JsonNode b = Expect.json(r);
        Expect.that(
                "ok".equals(Expect.str(b.get("status")))
                        && b.path("uptime_seconds").isIntegralNumber()
                        && b.path("uptime_seconds").asLong() >= 0,
                r.request() + ": expected {\"status\": \"ok\", \"uptime_seconds\": <integer >= 0>}, got "
                        + r.describe());
    }

    static Map<String, String> metadata(CheckContext ctx) throws Exception {
        Reply r = ctx.rest().get("/v1/metadata");
        Expect.status(r, 200);
        Expect.equal(r.request() + ": Content-Type", "application/json", r.mediaType());
        JsonNode b = Expect.json(r);
        JsonNode env = b.get("env");
        Expect.that(env != null && env.isObject(), r.request() + ": expected {\"env\": {...}}, got " + r.describe());
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : env.properties()) {
            Expect.that(
                    e.getValue().isString(),
                    r.request() + ": env value of " + e.getKey() + " must be a string, got " + e.getValue());
            out.put(e.getKey(), e.getValue().stringValue());
        }
        return out;
    }

    static boolean hasSubstring(String name) {
        String u = name.toUpperCase(Locale.ROOT);
        return UPSTREAM_CREDENTIAL_SUBSTRINGS.stream().anyMatch(u::contains);
    }

    static boolean hasWholeWord(String name) {
        for (String w : name.toUpperCase(Locale.ROOT).split("_")) {
            if (CREDENTIAL_WORDS.contains(w)) {
                return true;
            }
        }
        return false;
    }

    static void meta002(CheckContext ctx) throws Exception {
        String prefix = ctx.options().metadataEnvPrefix();
        Map<String, String> got = metadata(ctx);
        Map<String, String> daemon = ctx.suite().daemonEnv();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> e : got.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                wrong.add(e.getKey() + " (does not start with " + prefix + ")");
            } else if (!e.getValue().equals(daemon.get(e.getKey()))) {
                wrong.add(e.getKey() + " (value differs from the daemon environment seen by Execute `env`)");
            }
        }
        for (Map.Entry<String, String> e : daemon.entrySet()) {
            if (e.getKey().startsWith(prefix) && !hasSubstring(e.getKey()) && !got.containsKey(e.getKey())) {
                wrong.add(e.getKey() + " (in the daemon environment but missing)");
            }
        }
        Expect.that(
                wrong.isEmpty(), "GET /v1/metadata with prefix " + prefix + ": " + wrong + "; env was " + got.keySet());
    }

    static void meta003(CheckContext ctx) throws Exception {
        String prefix = ctx.options().metadataEnvPrefix();
        Map<String, String> got = metadata(ctx);
        Map<String, String> daemon = ctx.suite().daemonEnv();
        List<String> wrong = new ArrayList<>();
        for (String k : got.keySet()) {
            if (hasWholeWord(k)) {
                wrong.add(k + " (has a credential word, must be withheld)");
            }
        }
        for (String k : daemon.keySet()) {
            if (k.startsWith(prefix) && !hasWholeWord(k) && !got.containsKey(k)) {
                wrong.add(k + " (no whole credential word, must be kept)");
            }
        }
        Expect.that(wrong.isEmpty(), "GET /v1/metadata credential filtering: " + wrong);
    }

    static void metrics001(CheckContext ctx) throws Exception {
        Reply r = ctx.rest().get("/metrics");
        Expect.status(r, 200);
        String mt = r.mediaType();
        Expect.that(
                mt.equals("text/plain") || mt.equals("application/openmetrics-text"),
                r.request() + ": expected Prometheus text exposition (text/plain or application/openmetrics-text), got "
                        + r.describe());
        String body = r.bodyText();
        boolean sample =
                body.lines().anyMatch(l -> l.matches("[a-zA-Z_:][a-zA-Z0-9_:]*(\\{.*})? [-+0-9.eEaINnf]+( [0-9]+)?"));
        Expect.that(
                body.contains("# TYPE ") && sample,
                r.request() + ": expected \"# TYPE\" lines and samples, got " + r.describe());
    }

    static String token(CheckContext ctx) {
        String t = ctx.options().token();
        if (t == null) {
            throw new CheckSkipped(
                    "no --token given: run the runtime with an access token and pass it with --token to check authentication");
        }
        return t;
    }

    static void restAuth(CheckContext ctx, String sent) throws Exception {
        token(ctx);
        Rest c = ctx.rest().withToken(sent);
        for (String t : new String[] {"/v1/metadata", enc(ctx.suite().scratch()), "/metrics"}) {
            Expect.error(c.get(t), 401, "UNAUTHENTICATED");
        }
        Expect.error(c.put(enc(ctx.path("x.txt")), new byte[] {1}), 401, "UNAUTHENTICATED");
    }

    static void auth004(CheckContext ctx) {
        String token = token(ctx);
        for (String sent : new String[] {null, token + "-wrong"}) {
            SandboxdClient c = ctx.client().withToken(sent).withCallTimeout(Duration.ofSeconds(20));
            try {
                c.execute(Command.of("true"));
                throw fail("Execute [true] "
                        + (sent == null ? "without authorization metadata" : "with a wrong bearer token")
                        + ": expected UNAUTHENTICATED, got OK");
            } catch (GrpcCallException e) {
                Expect.that(
                        e.code() == Code.UNAUTHENTICATED,
                        "Execute [true] "
                                + (sent == null ? "without authorization metadata" : "with a wrong bearer token")
                                + ": expected UNAUTHENTICATED, got " + e.status());
            }
        }
    }

    static void auth005(CheckContext ctx) {
        token(ctx);
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(
                            ctx.client().withToken(null).channel())
                    .withDeadlineAfter(20, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance());
            Expect.equal(
                    "grpc.health.v1.Health/Check without a token",
                    HealthCheckResponse.ServingStatus.SERVING,
                    r.getStatus());
        } catch (StatusRuntimeException e) {
            throw fail("grpc.health.v1.Health/Check without a token: expected SERVING, got " + e.getStatus());
        }
    }
}
