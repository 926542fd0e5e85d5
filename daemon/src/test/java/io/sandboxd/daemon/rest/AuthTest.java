package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.config.TestConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** CONTRACT §3 access token on the REST side. */
class AuthTest {
    @TempDir
    Path tmp;

    @Test
    void everyRouteButHealthNeedsTheBearerToken() throws Exception {
        try (RestFixture f = new RestFixture(tmp, c -> TestConfig.withAuthToken(c, "s3cret"), Map.of())) {
            assertThat(f.http.get("/v1/health").status()).isEqualTo(200);
            for (String t : new String[] {"/v1/files/", "/v1/metadata", "/metrics", "/nope"}) {
                TestHttp.Response r = f.http.get(t);
                RestApiTest.assertError(r, 401, "UNAUTHENTICATED");
                assertThat(r.text()).doesNotContain("s3cret");
            }
            RestApiTest.assertError(f.http.send("GET", "/v1/files/", Map.of("Authorization", "Bearer wrong"), null),
                    401, "UNAUTHENTICATED");
            RestApiTest.assertError(f.http.send("PUT", "/v1/files/x", Map.of("Authorization", "Basic s3cret"), new byte[1]),
                    401, "UNAUTHENTICATED");
            assertThat(f.root.resolve("x")).doesNotExist();
            assertThat(f.http.send("GET", "/v1/files/", Map.of("Authorization", "Bearer s3cret"), null).status()).isEqualTo(200);
            assertThat(f.http.send("PUT", "/v1/files/x", Map.of("Authorization", "bearer s3cret"), new byte[1]).status())
                    .isEqualTo(204);
        }
    }
}
