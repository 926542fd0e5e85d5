package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.daemon.config.TestConfig;
import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** runtime-contract §3 access token on the REST side. */
class AuthTest {
    @TempDir
    Path tmp;

    @Test
    void everyRouteButHealthNeedsTheBearerToken() throws Exception {
        try (RestFixture f = new RestFixture(tmp, c -> TestConfig.withAuthToken(c, "s3cret"), Map.of())) {
            assertThat(f.exchange(RawRequest.get("/v1/health")).status()).isEqualTo(200);
            for (String t : new String[] {"/v1/files/", "/v1/metadata", "/metrics", "/nope"}) {
                RawResponse r = f.exchange(RawRequest.get(t));
                RestApiTest.assertError(r, 401, "UNAUTHENTICATED");
                assertThat(r.text()).doesNotContain("s3cret");
            }
            RestApiTest.assertError(
                    f.exchange(RawRequest.of("GET", "/v1/files/").header("Authorization", "Bearer wrong")),
                    401,
                    "UNAUTHENTICATED");
            RestApiTest.assertError(
                    f.exchange(RawRequest.of("PUT", "/v1/files/x")
                            .header("Authorization", "Basic s3cret")
                            .body(new byte[1])),
                    401,
                    "UNAUTHENTICATED");
            assertThat(f.root.resolve("x")).doesNotExist();
            assertThat(f.exchange(RawRequest.of("GET", "/v1/files/").header("Authorization", "Bearer s3cret"))
                            .status())
                    .isEqualTo(200);
            assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/x")
                                    .header("Authorization", "bearer s3cret")
                                    .body(new byte[1]))
                            .status())
                    .isEqualTo(204);
        }
    }
}
