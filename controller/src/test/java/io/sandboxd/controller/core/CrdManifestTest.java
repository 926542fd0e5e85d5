package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shipped CRDs match the Java model (group, version, plural, kind) and upstream's columns. */
class CrdManifestTest {
    static final Path CRDS = Path.of(System.getProperty("controller.dir", "."), "crds");

    static CustomResourceDefinition load(String file) throws Exception {
        try (InputStream in = Files.newInputStream(CRDS.resolve(file))) {
            return new KubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "agents.x-k8s.io_sandboxes.yaml",
                "extensions.agents.x-k8s.io_sandboxtemplates.yaml",
                "extensions.agents.x-k8s.io_sandboxwarmpools.yaml",
                "extensions.agents.x-k8s.io_sandboxclaims.yaml"
            })
    void crdMatchesModel(String file) throws Exception {
        CustomResourceDefinition crd = load(file);
        Class<? extends HasMetadata> type =
                switch (crd.getSpec().getNames().getKind()) {
                    case "Sandbox" -> Sandbox.class;
                    case "SandboxTemplate" -> SandboxTemplate.class;
                    case "SandboxWarmPool" -> SandboxWarmPool.class;
                    case "SandboxClaim" -> SandboxClaim.class;
                    default -> throw new AssertionError(crd.getSpec().getNames().getKind());
                };
        assertThat(crd.getMetadata().getName()).isEqualTo(HasMetadata.getFullResourceName(type));
        assertThat(crd.getSpec().getGroup()).isEqualTo(HasMetadata.getGroup(type));
        assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
        CustomResourceDefinitionVersion v = crd.getSpec().getVersions().get(0);
        assertThat(v.getName()).isEqualTo("v1beta1");
        assertThat(v.getStorage()).isTrue();
        if (type != SandboxTemplate.class)
            assertThat(v.getSubresources().getStatus()).isNotNull();
        if (type == Sandbox.class) {
            assertThat(v.getAdditionalPrinterColumns())
                    .extracting(c -> c.getName())
                    .containsExactly("Ready", "Reason", "Age");
            assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("sandbox");
        }
        if (type == SandboxWarmPool.class) {
            assertThat(v.getSubresources().getScale().getSpecReplicasPath()).isEqualTo(".spec.replicas");
            assertThat(v.getSubresources().getScale().getStatusReplicasPath()).isEqualTo(".status.replicas");
            assertThat(v.getSubresources().getScale().getLabelSelectorPath()).isEqualTo(".status.selector");
            assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("swp");
        }
        if (type == SandboxClaim.class) {
            assertThat(v.getAdditionalPrinterColumns())
                    .extracting(c -> c.getName())
                    .containsExactly("Ready", "Sandbox", "Reason", "Age");
        }
    }
}
