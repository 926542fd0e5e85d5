package io.sandboxd.daemon.rest;

import static io.sandboxd.daemon.rest.ExtensionRoutesTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.testkit.raw.RawRequest;
import io.sandboxd.testkit.raw.RawResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code GET /sandboxd/v1alpha1/fs/list} (runtime-contract §4.3) over HTTP, real files. */
class ListRouteTest {
    @TempDir
    Path tmp;

    RestFixture f;
    Path root;

    @BeforeEach
    void start() throws Exception {
        f = new RestFixture(tmp);
        root = f.root;
    }

    @AfterEach
    void stop() {
        f.close();
    }

    RawResponse list(String query) throws Exception {
        return f.exchange(RawRequest.get("/sandboxd/v1alpha1/fs/list?" + query));
    }

    JsonNode ok(String query) throws Exception {
        RawResponse r = list(query);
        assertThat(r.status()).as(r.describe()).isEqualTo(200);
        return json(r);
    }

    static List<String> paths(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.get("entries").forEach(e -> out.add(e.get("path").asString()));
        return out;
    }

    @Test
    void depthOneHasTheNamesOfTodaysListing() throws Exception {
        Files.createDirectories(root.resolve("d/sub"));
        Files.writeString(root.resolve("d/b.txt"), "bb");
        Files.writeString(root.resolve("d/a.txt"), "a");
        Files.writeString(root.resolve("d/sub/deep"), "deep");
        JsonNode page = ok("path=d");
        assertThat(page.get("path").asString()).isEqualTo("/d");
        assertThat(paths(page)).containsExactly("a.txt", "b.txt", "sub");
        assertThat(page.has("next_cursor")).isFalse();
        List<String> upstream = new ArrayList<>();
        json(f.exchange(RawRequest.get("/v1/files/d")))
                .get("entries")
                .forEach(e -> upstream.add(e.get("name").asString()));
        assertThat(paths(page)).isEqualTo(upstream);

        JsonNode a = page.get("entries").get(0);
        assertThat(a.get("type").asString()).isEqualTo("file");
        assertThat(a.get("size").asLong()).isEqualTo(1);
        assertThat(a.get("etag").asString())
                .isEqualTo(f.exchange(RawRequest.head("/v1/files/d/a.txt")).header("ETag"));
        assertThat(page.get("entries").get(2).get("type").asString()).isEqualTo("directory");
    }

    @Test
    void deepListingsArePagedInWalkOrder() throws Exception {
        Files.createDirectories(root.resolve("t/a/x"));
        Files.createDirectories(root.resolve("t/b"));
        Files.writeString(root.resolve("t/a/x/1"), "");
        Files.writeString(root.resolve("t/a/2"), "");
        Files.writeString(root.resolve("t/a-"), "");
        Files.writeString(root.resolve("t/b/3"), "");
        Files.createSymbolicLink(root.resolve("t/link"), Path.of("a"));
        List<String> all = paths(ok("path=t&depth=3&limit=100"));
        assertThat(all).containsExactly("a", "a/2", "a/x", "a/x/1", "a-", "b", "b/3", "link");
        assertThat(paths(ok("path=t&depth=2"))).containsExactly("a", "a/2", "a/x", "a-", "b", "b/3", "link");

        List<String> paged = new ArrayList<>();
        String cursor = "";
        int pages = 0;
        while (true) {
            JsonNode page = ok("path=t&depth=3&limit=3&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            paged.addAll(paths(page));
            pages++;
            if (!page.has("next_cursor")) {
                break;
            }
            cursor = page.get("next_cursor").asString();
        }
        assertThat(paged).isEqualTo(all);
        assertThat(pages).isEqualTo(3);

        JsonNode link = ok("path=t&limit=100").get("entries").get(3);
        assertThat(link.get("type").asString()).isEqualTo("symlink");
        assertThat(link.get("link_target").asString()).isEqualTo("a");
    }

    @Test
    void namesThatAreNotUtf8AreAddressable() throws Exception {
        Files.createDirectories(root.resolve("w"));
        new ProcessBuilder("sh", "-c", "mkdir \"$(printf 'd\\377')\" && printf x > \"$(printf 'd\\377/f\\376')\"")
                .directory(root.resolve("w").toFile())
                .start()
                .waitFor();
        JsonNode page = ok("path=w&depth=2");
        JsonNode file = page.get("entries").get(1);
        assertThat(file.get("path").asString()).isEqualTo("d\uFFFD/f\uFFFD");
        assertThat(file.get("path_encoded").asString()).isEqualTo("d%FF/f%FE");
        assertThat(f.exchange(RawRequest.get(
                                "/v1/files/w/" + file.get("path_encoded").asString()))
                        .text())
                .isEqualTo("x");
    }

    @Test
    void badRequests() throws Exception {
        Files.writeString(root.resolve("file"), "x");
        assertThat(list("path=file").status()).isEqualTo(400);
        assertThat(list("path=missing").status()).isEqualTo(404);
        assertThat(list("path=..").status()).isEqualTo(403);
        assertThat(json(list("path=&depth=0")).get("message").asString()).contains("depth");
        assertThat(json(list("path=&depth=33")).get("message").asString()).contains("depth");
        assertThat(json(list("path=&limit=0")).get("message").asString()).contains("limit");
        assertThat(json(list("path=&limit=100001")).get("message").asString()).contains("limit");
        assertThat(json(list("path=&cursor=garbage")).get("message").asString()).contains("cursor");
        assertThat(json(list("path=&cursor=p1.Li4")).get("code").asString()).isEqualTo("INVALID_ARGUMENT");
    }
}
