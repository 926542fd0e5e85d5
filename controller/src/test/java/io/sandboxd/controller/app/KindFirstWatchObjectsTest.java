package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Watch events read in one pass must come out exactly as fabric8's own two-pass reading makes
 * them, whatever the order of the object's fields; objects the fast path does not take must still
 * be read by fabric8.
 */
class KindFirstWatchObjectsTest {
    static final String SANDBOX_BODY = "\"metadata\":{\"name\":\"s\",\"namespace\":\"n\",\"resourceVersion\":\"7\","
            + "\"labels\":{\"a\":\"b\"},\"ownerReferences\":[{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"name\":\"o\","
            + "\"uid\":\"u\",\"controller\":true}]},"
            + "\"spec\":{\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}},"
            + "\"operatingMode\":\"Running\"},"
            + "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"R\","
            + "\"lastTransitionTime\":\"2026-12-02T00:00:00Z\",\"observedGeneration\":2}],"
            + "\"podIPs\":[\"10.0.0.1\"]}";
    static final String SANDBOX_API = "\"apiVersion\":\"agents.x-k8s.io/v1beta1\"";
    static final String SANDBOX_KIND = "\"kind\":\"Sandbox\"";
    static final String POD_BODY = "\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"nodeName\":\"node\"},"
            + "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.2\"}";

    /** The same Sandbox with its fields in every order an API server or a test might write. */
    static List<String> sandboxes() {
        return List.of(
                "{" + SANDBOX_API + "," + SANDBOX_KIND + "," + SANDBOX_BODY + "}",
                "{" + SANDBOX_KIND + "," + SANDBOX_API + "," + SANDBOX_BODY + "}",
                "{" + SANDBOX_KIND + "," + SANDBOX_BODY + "," + SANDBOX_API + "}",
                "{" + SANDBOX_BODY + "," + SANDBOX_API + "," + SANDBOX_KIND + "}",
                "{" + SANDBOX_API + "," + SANDBOX_BODY + "," + SANDBOX_KIND + "}");
    }

    static KubernetesSerialization fabric8() {
        KubernetesSerialization s = new KubernetesSerialization();
        for (Class<?> c : List.of(Sandbox.class, SandboxClaim.class, SandboxTemplate.class, SandboxWarmPool.class))
            s.registerKubernetesResource(c.asSubclass(io.fabric8.kubernetes.api.model.KubernetesResource.class));
        return s;
    }

    static KubernetesSerialization ours() {
        KubernetesSerialization s = Controllers.serialization();
        for (Class<?> c : List.of(Sandbox.class, SandboxClaim.class, SandboxTemplate.class, SandboxWarmPool.class))
            s.registerKubernetesResource(c.asSubclass(io.fabric8.kubernetes.api.model.KubernetesResource.class));
        return s;
    }

    /** {@code json} as the operator's client reads it: from a watch event, then from a response body. */
    static <T> List<T> readBothWays(String json, Class<T> type) {
        KubernetesSerialization s = ours();
        Object fromWatch = object(s, json);
        assertThat(fromWatch).isInstanceOf(type);
        return List.of(type.cast(fromWatch), s.unmarshal(json, type));
    }

    static Object object(KubernetesSerialization s, String object) {
        WatchEvent e = s.unmarshal("{\"type\":\"MODIFIED\",\"object\":" + object + "}", WatchEvent.class);
        assertThat(e.getType()).isEqualTo("MODIFIED");
        return e.getObject();
    }

    @ParameterizedTest
    @MethodSource("sandboxes")
    void aSandboxInAnyFieldOrderComesOutAsFabric8ReadsIt(String json) {
        Object mine = object(ours(), json);
        Object theirs = object(fabric8(), json);
        assertThat(mine).isInstanceOf(Sandbox.class);
        assertThat(theirs).isInstanceOf(Sandbox.class);
        assertThat(ours().asJson(mine)).isEqualTo(fabric8().asJson(theirs));
        Sandbox sb = (Sandbox) mine;
        assertThat(sb.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(sb.getStatus().getPodIPs()).containsExactly("10.0.0.1");
        assertThat(sb.getApiVersion()).isEqualTo(Sandbox.API_VERSION);
        assertThat(sb.getKind()).isEqualTo(Sandbox.KIND);
    }

    @Test
    void theListedKindsTakeTheOnePassPathWithoutFabric8sRegistry() {
        // Unregistered, fabric8 reads a Sandbox as a generic resource; the one-pass path knows the
        // listed kinds itself, so this shows the path is taken.
        String json = "{" + SANDBOX_API + "," + SANDBOX_KIND + "," + SANDBOX_BODY + "}";
        assertThat(object(new KubernetesSerialization(), json)).isInstanceOf(GenericKubernetesResource.class);
        assertThat(object(Controllers.serialization(), json)).isInstanceOf(Sandbox.class);
    }

    @Test
    void aPodAsTheApiServerWritesItKindFirst() {
        String json = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"," + POD_BODY + "}";
        Object mine = object(ours(), json);
        // As the operator's client reads a Pod through either path (SlimPods narrows both).
        assertThat(mine).isInstanceOf(Pod.class).isEqualTo(ours().unmarshal(json, Pod.class));
        assertThat(((Pod) mine).getSpec().getNodeName()).isEqualTo("node");
    }

    @Test
    void theSameKindUnderAnotherApiVersionIsLeftToFabric8() {
        // Not the version the class is for: fabric8 decides (here: a generic resource).
        String json = "{\"apiVersion\":\"agents.x-k8s.io/v1alpha1\",\"kind\":\"Sandbox\"," + SANDBOX_BODY + "}";
        Object mine = object(ours(), json);
        assertThat(mine).isInstanceOf(GenericKubernetesResource.class).isEqualTo(object(fabric8(), json));
        assertThat(((GenericKubernetesResource) mine).getApiVersion()).isEqualTo("agents.x-k8s.io/v1alpha1");
    }

    @Test
    void anErrorEventsStatusIsLeftToFabric8() {
        String json = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}";
        Object mine = object(ours(), json);
        assertThat(mine).isInstanceOf(Status.class).isEqualTo(object(fabric8(), json));
        assertThat(((Status) mine).getCode()).isEqualTo(410);
    }

    @Test
    void aKindThatIsNotAStringFailsAsInFabric8() {
        String json = "{\"apiVersion\":\"v1\",\"kind\":{\"odd\":true}," + POD_BODY + "}";
        assertThatThrownBy(() -> object(fabric8(), json)).isInstanceOf(KubernetesClientException.class);
        assertThatThrownBy(() -> object(ours(), json))
                .isInstanceOf(KubernetesClientException.class)
                .hasRootCauseMessage(rootMessage(() -> object(fabric8(), json)));
    }

    static String rootMessage(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t.getCause() != null) t = t.getCause();
            return t.getMessage();
        }
        throw new AssertionError("did not fail");
    }

    @Test
    void anObjectWithoutKindIsLeftToFabric8() {
        String json = "{\"apiVersion\":\"v1\"," + POD_BODY + "}";
        Object mine = object(ours(), json);
        Object theirs = object(fabric8(), json);
        assertThat(mine.getClass()).isEqualTo(theirs.getClass());
        assertThat(ours().asJson(mine)).isEqualTo(fabric8().asJson(theirs));
    }

    @Test
    void eachListedKindReadsBackAsItsOwnClass() {
        for (Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> c : KindFirstWatchObjects.KINDS) {
            io.fabric8.kubernetes.api.model.HasMetadata blank;
            try {
                blank = c.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            String json = "{\"apiVersion\":\"" + blank.getApiVersion() + "\",\"kind\":\"" + blank.getKind()
                    + "\",\"metadata\":{\"name\":\"x\"}}";
            Object mine = object(ours(), json);
            assertThat(mine).as(c.getName()).isInstanceOf(c);
            assertThat(ours().asJson(mine)).as(c.getName()).isEqualTo(fabric8().asJson(object(fabric8(), json)));
        }
    }
}
