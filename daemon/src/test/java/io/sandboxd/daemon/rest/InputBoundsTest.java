package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 16's audit of inputs: the bounds that had none, each refused as a client error naming it. */
class InputBoundsTest {
    @TempDir
    Path tmp;

    RestFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp);
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void multipartPartHeadersAreBounded() throws Exception {
        String body = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n" + "X-Filler: "
                + "h".repeat(64 * 1024) + "\r\n\r\ncontent\r\n--XyZ--\r\n";
        RawResponse r = f.exchange(RawRequest.of("PUT", "/v1/files/a.txt")
                .header("Content-Type", "multipart/form-data; boundary=XyZ")
                .body(body.getBytes(StandardCharsets.UTF_8)));
        RestApiTest.assertError(r, 400, "INVALID_ARGUMENT"); // before: 204, the header kept whole in memory
        assertThat(f.root.resolve("a.txt")).doesNotExist();
        String ok =
                "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\ncontent\r\n--XyZ--\r\n";
        assertThat(f.exchange(RawRequest.of("PUT", "/v1/files/a.txt")
                                .header("Content-Type", "multipart/form-data; boundary=XyZ")
                                .body(ok.getBytes(StandardCharsets.UTF_8)))
                        .status())
                .isEqualTo(204);
    }
}
