package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sandboxd.controller.model.Sandbox;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.type.TypeReference;

/** What fabric8 reads, read the same way, without the copies fabric8 makes first. */
class UnbufferedSerializationTest {
    static final String SANDBOX = "{" + KindFirstWatchObjectsTest.SANDBOX_API + ","
            + KindFirstWatchObjectsTest.SANDBOX_KIND + "," + KindFirstWatchObjectsTest.SANDBOX_BODY + "}";
    static final String EVENT = "{\"type\":\"MODIFIED\",\"object\":" + SANDBOX + "}";
    static final TypeReference<WatchEvent> WATCH_EVENT = new TypeReference<>() {};

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\n\t "})
    void readsAWatchEventFromAStringAsFabric8Does(String leading) {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        KubernetesSerialization fabric8 = KindFirstWatchObjectsTest.fabric8();

        WatchEvent got = ours.unmarshal(leading + EVENT, WATCH_EVENT);
        WatchEvent want = fabric8.unmarshal(leading + EVENT, WATCH_EVENT);

        assertThat(got.getObject()).isInstanceOf(Sandbox.class);
        assertThat(fabric8.asJson(got)).isEqualTo(fabric8.asJson(want));
    }

    @Test
    void readsAResponseBodyFromAMarkableStreamAndFromOneThatCannotMark() {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        byte[] body = (" " + SANDBOX).getBytes(StandardCharsets.UTF_8);

        Sandbox markable = ours.unmarshal(new ByteArrayInputStream(body), Sandbox.class);
        Sandbox unmarkable = ours.unmarshal(cannotMark(new ByteArrayInputStream(body)), Sandbox.class);

        assertThat(markable.getMetadata().getName()).isEqualTo("s");
        assertThat(ours.asJson(unmarkable)).isEqualTo(ours.asJson(markable));
    }

    @Test
    void yamlStillGoesToFabric8() {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        String yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";

        Pod fromString = ours.unmarshal(yaml, Pod.class);
        Pod fromStream = ours.unmarshal(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), Pod.class);

        assertThat(fromString.getMetadata().getName()).isEqualTo("p");
        assertThat(fromStream.getMetadata().getName()).isEqualTo("p");
    }

    @Test
    void malformedJsonFailsAsInFabric8() {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        KubernetesSerialization fabric8 = KindFirstWatchObjectsTest.fabric8();
        String broken = "{\"type\":\"MODIFIED\",\"object\":{";

        assertThatThrownBy(() -> fabric8.unmarshal(broken, WATCH_EVENT))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessage("An error has occurred.");
        assertThatThrownBy(() -> ours.unmarshal(broken, WATCH_EVENT))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessage("An error has occurred.");
        assertThatThrownBy(() -> ours.unmarshal(
                        new ByteArrayInputStream(broken.getBytes(StandardCharsets.UTF_8)), KubernetesResource.class))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessage("An error has occurred.");
    }

    /**
     * The point of the class: fabric8 allocates at least an 8 KiB buffer per read. Counted on this
     * thread by the JVM (exact, not sampled), after a warm-up so that lookups done once are left out.
     */
    @Test
    void aReadAllocatesLessThanFabric8sBufferAlone() {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        KubernetesSerialization fabric8 = KindFirstWatchObjectsTest.fabric8();
        for (int i = 0; i < 200; i++) {
            ours.unmarshal(EVENT, WATCH_EVENT);
            fabric8.unmarshal(EVENT, WATCH_EVENT);
        }
        int reads = 1_000;

        long oursPerRead = allocatedBy(() -> ours.unmarshal(EVENT, WATCH_EVENT), reads) / reads;
        long fabric8PerRead = allocatedBy(() -> fabric8.unmarshal(EVENT, WATCH_EVENT), reads) / reads;

        assertThat(fabric8PerRead).isGreaterThan(8192);
        assertThat(oursPerRead).isLessThan(fabric8PerRead - 8192);
    }

    private static long allocatedBy(Runnable read, int times) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < times; i++) read.run();
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    private static InputStream cannotMark(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public boolean markSupported() {
                return false;
            }
        };
    }
}
