package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.sandboxd.controller.model.Ref;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CreateBodyTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode tree(String json) {
        return JSON.readTree(json);
    }

    /** The body with the spec's JSON spliced in reads as the object serialized whole. */
    private static void assertSameAsWhole(HasMetadata item, Object spec) {
        assertThat(tree(CreateBody.of(item, Copies.json(spec)))).isEqualTo(tree(Copies.json(item)));
    }

    @Test
    void aPodReadsAsThePodSerializedWhole() {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("sb")
                .withNamespace("ns")
                .withLabels(Map.of("a", "1", "quote\"d", "back\\slash"))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("img:1")
                .endContainer()
                .withAutomountServiceAccountToken(false)
                .endSpec()
                .build();
        assertSameAsWhole(pod, pod.getSpec());
    }

    @Test
    void aPoolMemberReadsAsTheMemberSerializedWhole() {
        SandboxTemplate t = new SandboxTemplate();
        t.getMetadata().setName("tpl");
        t.getMetadata().setNamespace("ns");
        SandboxWarmPool pool = new SandboxWarmPool();
        pool.getMetadata().setName("pool");
        pool.getMetadata().setNamespace("ns");
        pool.getMetadata().setUid("u-1");
        pool.getSpec().setSandboxTemplateRef(new Ref("tpl"));
        var member = PoolSandboxes.build(pool, t, Blueprints.hashes(t), "pool-abcde", true);
        assertSameAsWhole(member, member.getSpec());
        assertThat(tree(CreateBody.of(member, Copies.json(member.getSpec())))
                        .path("kind")
                        .asString())
                .isEqualTo("Sandbox");
    }
}
