package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The extension prefix (runtime-contract §4) gets what every route of the REST port gets: the
 * bearer-token check, JSON errors for unknown routes, wrong methods and bad query parameters,
 * and confinement of every path it is given.
 */
class ExtensionRoutesTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    static JsonNode json(RawResponse r) {
        assertThat(r.mediaType()).as(r.describe()).isEqualTo("application/json");
        return JSON.readTree(r.body());
    }

    @Test
    void authIsRequiredUnderThePrefix() throws Exception {
        try (RestFixture f = new RestFixture(tmp, c -> TestConfig.withAuthToken(c, "s3cret"), Map.of())) {
            RawResponse none = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path="));
            assertThat(none.status()).isEqualTo(401);
            assertThat(json(none).get("code").asString()).isEqualTo("UNAUTHENTICATED");
            RawResponse wrong = f.exchange(
                    RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=").bearer("nope"));
            assertThat(wrong.status()).isEqualTo(401);
            RawResponse unknown = f.exchange(RawRequest.get("/sandboxd/v1alpha1/nothing-here"));
            assertThat(unknown.status())
                    .as("no route is revealed without a token")
                    .isEqualTo(401);
            RawResponse ok = f.exchange(
                    RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=").bearer("s3cret"));
            assertThat(ok.status()).as(ok.describe()).isEqualTo(200);
        }
    }

    @Test
    void unknownRoutesWrongMethodsAndBadParametersAreJsonErrors() throws Exception {
        try (RestFixture f = new RestFixture(tmp)) {
            RawResponse unknown = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/nothing"));
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(json(unknown).get("code").asString()).isEqualTo("NOT_FOUND");

            RawResponse wrong = f.exchange(RawRequest.of("DELETE", "/sandboxd/v1alpha1/fs/stat?path=x"));
            assertThat(wrong.status()).isEqualTo(405);
            assertThat(wrong.header("Allow")).isEqualTo("GET");
            assertThat(json(wrong).get("code").asString()).isEqualTo("INVALID_ARGUMENT");

            RawResponse typo = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?pth=x"));
            assertThat(typo.status()).isEqualTo(400);
            assertThat(json(typo).get("message").asString()).contains("\"pth\"").contains("path");

            RawResponse twice = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=a&path=b"));
            assertThat(twice.status()).isEqualTo(400);
            assertThat(json(twice).get("message").asString()).contains("more than once");

            RawResponse missing = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat"));
            assertThat(missing.status()).isEqualTo(400);
            assertThat(json(missing).get("message").asString()).contains("\"path\" is required");

            RawResponse badBool = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=&follow=yes"));
            assertThat(badBool.status()).isEqualTo(400);
            assertThat(json(badBool).get("message").asString()).contains("follow");

            RawResponse badEscape = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=%G1"));
            assertThat(badEscape.status()).isEqualTo(400);
        }
    }

    @Test
    void pathsInTheQueryAreConfinedLikeFilesPaths() throws Exception {
        try (RestFixture f = new RestFixture(tmp)) {
            Files.createSymbolicLink(f.root.resolve("out"), f.base);
            for (String p : new String[] {"..", "a/../../x", "%2E%2E/%2E%2E", "out/root", "out"}) {
                RawResponse r = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?follow=true&path=" + p));
                assertThat(r.status()).as(p + ": " + r.describe()).isEqualTo(403);
                assertThat(json(r).get("code").asString()).isEqualTo("PERMISSION_DENIED");
                assertThat(r.text()).doesNotContain(f.base.toString());
            }
            RawResponse nul = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=a%00b"));
            assertThat(nul.status()).isEqualTo(400);
            // an absolute path is re-rooted, as on /v1/files
            Files.writeString(f.root.resolve("etc-passwd"), "x");
            RawResponse abs = f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=/etc-passwd"));
            assertThat(json(abs).get("path").asString()).isEqualTo("/etc-passwd");
        }
    }

    @Test
    void metricsLabelTheRouteNotThePath() throws Exception {
        try (RestFixture f = new RestFixture(tmp)) {
            f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/stat?path=secret-name"));
            f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/unknown-secret"));
            // Jetty's request log, which records the metrics, runs after each response is sent, so a
            // scrape right after the answers may not hold them yet: wait for both.
            String stat = "route=\"/sandboxd/v1alpha1/fs/stat\"";
            String unmatched = "route=\"unmatched\"";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String metrics = f.exchange(RawRequest.get("/metrics")).text();
            while (!(metrics.contains(stat) && metrics.contains(unmatched)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
                metrics = f.exchange(RawRequest.get("/metrics")).text();
            }
            assertThat(metrics).contains(stat, unmatched);
            assertThat(metrics).doesNotContain("secret");
        }
    }
}
