package io.sandboxd.controller.standin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The stand-in's two watch transports, as fabric8 uses them: a WebSocket with one event per text
 * message (what fabric8 opens against a real API server), and a streamed HTTP response with one
 * event per line (its fallback). Both must carry the same events in order, and a plain request on a
 * kept-alive connection must still be answered after a watch ended.
 */
class ApiStandInWatchTest {
    final ObjectStore store = new ObjectStore();
    final Kind sandboxes = store.kindOf("sandboxes");
    final ApiStandIn api;
    final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    ApiStandInWatchTest() throws Exception {
        api = new ApiStandIn(store);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private String watchPath() {
        return "/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes?watch=true&resourceVersion=0";
    }

    private void createThree() {
        for (String n : List.of("a", "b", "c"))
            store.create(sandboxes, "ns", ObjectStoreTest.obj("{\"metadata\":{\"name\":\"" + n + "\"}}"));
    }

    private HttpResponse<String> getSandbox(String name) throws Exception {
        return http.send(
                HttpRequest.newBuilder(
                                URI.create(api.url() + "/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes/" + name))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String nameOf(String event) {
        JsonNode e = ObjectStore.JSON.readTree(event);
        assertThat(e.path("type").asString()).isEqualTo("ADDED");
        return e.path("object").path("metadata").path("name").asString();
    }

    @Test
    void webSocketWatchSendsOneEventPerMessage() throws Exception {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        WebSocket ws = http.newWebSocketBuilder()
                .buildAsync(URI.create(api.url().replace("http:", "ws:") + watchPath()), new WebSocket.Listener() {
                    final StringBuilder part = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        part.append(data);
                        if (last) {
                            messages.add(part.toString());
                            part.setLength(0);
                        }
                        w.request(1);
                        return null;
                    }
                })
                .get(5, TimeUnit.SECONDS);
        createThree();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String m = messages.poll(5, TimeUnit.SECONDS);
            assertThat(m).as("event %d", i).isNotNull().doesNotContain("\n");
            names.add(nameOf(m));
        }
        assertThat(names).containsExactly("a", "b", "c");
        assertThat(api.webSocketWatches()).isEqualTo(1);
        assertThat(api.httpWatches()).isZero();
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    }

    @Test
    void aWatchWhoseClientWentAwayEndsWithoutWaitingForAnEvent() throws Exception {
        WebSocket ws = http.newWebSocketBuilder()
                .buildAsync(URI.create(api.url().replace("http:", "ws:") + watchPath()), new WebSocket.Listener() {})
                .get(5, TimeUnit.SECONDS);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (api.openWatches() == 0 && System.nanoTime() < until) Thread.sleep(10);
        assertThat(api.openWatches()).isEqualTo(1);
        ws.abort();
        until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (api.openWatches() > 0 && System.nanoTime() < until) Thread.sleep(10);
        assertThat(api.openWatches())
                .as("the store's watch is let go, not kept until its deadline")
                .isZero();
    }

    @Test
    void httpWatchStreamsOneEventPerLineAndTheConnectionServesRequestsAfterwards() throws Exception {
        HttpResponse<InputStream> r = http.send(
                HttpRequest.newBuilder(URI.create(api.url() + watchPath() + "&timeoutSeconds=2"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        createThree();
        List<String> names = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) names.add(nameOf(line));
        }
        assertThat(names).as("the watch ends at its timeout").containsExactly("a", "b", "c");
        assertThat(api.httpWatches()).isEqualTo(1);
        assertThat(api.webSocketWatches()).isZero();
        HttpResponse<String> get = getSandbox("b");
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(ObjectStore.JSON
                        .readTree(get.body())
                        .path("metadata")
                        .path("name")
                        .asString())
                .isEqualTo("b");
    }

    @Test
    void theLastAnswerIsTheLatestRequestAnsweredOtherThanAWatch() throws Exception {
        assertThat(api.lastAnsweredNanos()).isZero();
        createThree();
        HttpResponse<InputStream> watch = http.send(
                HttpRequest.newBuilder(URI.create(api.url() + watchPath() + "&timeoutSeconds=1"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        watch.body().readAllBytes(); // three events, then the end at its timeout
        assertThat(api.lastAnsweredNanos()).as("a watch is not an answer").isZero();
        long before = System.nanoTime();
        HttpResponse<String> get = getSandbox("b");
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(api.lastAnsweredNanos()).isBetween(before, System.nanoTime());
    }

    @Test
    void anExpiredVersionIsAnErrorEventThenTheEnd() throws Exception {
        for (int i = 0; i <= ObjectStore.HISTORY + 1; i++) // rv 1 and 2 compacted away
        store.create(sandboxes, "ns", ObjectStoreTest.obj("{\"metadata\":{\"name\":\"s" + i + "\"}}"));
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(api.url()
                                + "/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes?watch=true&resourceVersion=1"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).endsWith("\n").containsOnlyOnce("\n");
        JsonNode e = ObjectStore.JSON.readTree(r.body());
        assertThat(e.path("type").asString()).isEqualTo("ERROR");
        assertThat(e.path("object").path("code").asInt()).isEqualTo(410);
    }
}
