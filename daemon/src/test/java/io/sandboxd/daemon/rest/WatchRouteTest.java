package io.sandboxd.daemon.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /sandboxd/v1alpha1/watch} on a real server (runtime-contract §4.2): the SSE framing a
 * browser's EventSource and curl read, heartbeats, resuming with {@code Last-Event-ID}, and the
 * end of every stream at shutdown. Changes are made by child processes.
 */
class WatchRouteTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    RestFixture fixture;
    final HttpClient http = HttpClient.newHttpClient();
    final List<Sse> open = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        fixture = new RestFixture(tmp);
    }

    @AfterEach
    void tearDown() {
        open.forEach(Sse::close);
        fixture.close();
    }

    /** One SSE response read line by line on a thread of its own, so the test can wait with a timeout. */
    final class Sse implements AutoCloseable {
        final HttpResponse<Stream<String>> response;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final Thread reader;

        Sse(String query, Map<String, String> headers) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + fixture.server.port() + "/sandboxd/v1alpha1/watch?" + query));
            headers.forEach(b::header);
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofLines());
            reader = new Thread(() -> {
                try {
                    response.body().forEach(lines::add);
                } catch (RuntimeException e) {
                    // closed
                }
                lines.add("<end>");
            });
            reader.setDaemon(true);
            reader.start();
            open.add(this);
        }

        String line() throws InterruptedException {
            String l = lines.poll(10, TimeUnit.SECONDS);
            assertThat(l).as("a line within 10 s").isNotNull();
            return l;
        }

        /** The next event: its id and its JSON (comments and heartbeats skipped). */
        Event event() throws InterruptedException {
            String id = null;
            while (true) {
                String l = line();
                if (l.equals("<end>")) {
                    return null;
                }
                if (l.startsWith("id: ")) {
                    id = l.substring(4);
                } else if (l.startsWith("data: ")) {
                    JsonNode data = JSON.readTree(l.substring(6));
                    assertThat(line()).as("an event ends with a blank line").isEmpty();
                    return new Event(Long.parseLong(id), data);
                }
            }
        }

        @Override
        public void close() {
            response.body().close();
        }
    }

    record Event(long id, JsonNode data) {
        String type() {
            return data.get("type").asString();
        }

        String path() {
            return data.get("path").asString();
        }
    }

    void sh(String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script)
                .directory(fixture.root.toFile())
                .inheritIO()
                .start();
        assertThat(p.waitFor()).isZero();
    }

    @Test
    void aStreamIsServerSentEventsWithSequenceIdsAndHeartbeatsWhileIdle() throws Exception {
        Sse s = new Sse("path=/&recursive=true", Map.of());
        assertThat(s.response.statusCode()).isEqualTo(200);
        assertThat(s.response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        assertThat(s.line()).isEqualTo(": watching /");
        assertThat(s.line()).isEqualTo("retry: 1000");
        assertThat(s.line()).isEmpty();
        // idle: the test fixture's heartbeat is 300 ms
        assertThat(s.line()).isEqualTo(":");
        assertThat(s.line()).isEmpty();
        sh("mkdir d && printf 12345 > d/f");
        Event dir = s.event();
        assertThat(dir.type()).isEqualTo("created");
        assertThat(dir.path()).isEqualTo("/d");
        assertThat(dir.data().get("entry").asString()).isEqualTo("directory");
        assertThat(dir.data().get("seq").asLong()).isEqualTo(dir.id());
        Event file = s.event();
        assertThat(file.type()).isEqualTo("created");
        assertThat(file.path()).isEqualTo("/d/f");
        assertThat(file.id()).isGreaterThan(dir.id());
        // When the write finished before the kernel watched d, the directory's scan reports the file
        // complete as created and no modified follows (runtime-contract §4.2); else the close after
        // writing is one modified.
        Event last = file;
        if (!file.data().has("size") || file.data().get("size").asLong() != 5) {
            last = s.event();
            assertThat(last.type()).isEqualTo("modified");
            assertThat(last.path()).isEqualTo("/d/f");
        }
        assertThat(last.data().get("size").asLong()).isEqualTo(5);
        assertThat(last.data().get("modified_at").asString()).endsWith("Z");
    }

    @Test
    void aNameThatIsNotUtf8ComesWithItsEncodedBytes() throws Exception {
        Sse s = new Sse("path=", Map.of());
        Files.createDirectories(fixture.root);
        sh("touch \"$(printf 'a\\377b')\"");
        Event e = s.event();
        assertThat(e.path()).isEqualTo("/a\uFFFDb");
        assertThat(e.data().get("path_encoded").asString()).isEqualTo("/a%FFb");
    }

    @Test
    void lastEventIdResumesAfterThatEventAndWinsOverTheCursorParameter() throws Exception {
        Sse first = new Sse("path=/", Map.of());
        sh("touch one two");
        List<Event> seen = new ArrayList<>();
        while (seen.size() < 2) {
            Event e = first.event();
            if (e.type().equals("created")) {
                seen.add(e);
            }
        }
        first.close();
        sh("touch three");
        // what EventSource does on reconnect: the first URL (cursor and all) plus Last-Event-ID
        Sse again = new Sse(
                "path=/&cursor=1",
                Map.of("Last-Event-ID", String.valueOf(seen.get(0).id())));
        List<String> created = new ArrayList<>();
        while (created.size() < 2) {
            Event e = again.event();
            assertThat(e.type()).isNotEqualTo("resync");
            assertThat(e.id()).isGreaterThan(seen.get(0).id());
            if (e.type().equals("created")) {
                created.add(e.path());
            }
        }
        assertThat(created).containsExactly("/two", "/three");
    }

    @Test
    void atShutdownEveryStreamGetsAnErrorEventAndEnds() throws Exception {
        Sse s = new Sse("path=/", Map.of());
        assertThat(s.line()).startsWith(": watching");
        fixture.watcher.close();
        Event e = s.event();
        assertThat(e.type()).isEqualTo("error");
        assertThat(e.data().get("code").asString()).isEqualTo("UNAVAILABLE");
        assertThat(e.data().get("reason").asString()).isEqualTo("shutdown");
        assertThat(s.event()).as("the response ends").isNull();
    }
}
