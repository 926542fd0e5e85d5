package io.sandboxd.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * `kubectl apply -k install/` installs everything: rendered offline with `kubectl kustomize`, it
 * holds the four generated CRDs, both components' namespaces, ServiceAccounts, RBAC (every binding
 * names a ServiceAccount it creates) and Deployments, whose images are the locally built ones and
 * are never pulled (imagePullPolicy IfNotPresent, so images loaded into kind or minikube work).
 */
class InstallKustomizationTest {
    static final Path REPO =
            Path.of(System.getProperty("controller.dir", ".")).toAbsolutePath().getParent();
    static List<HasMetadata> objects;

    @BeforeAll
    static void render() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(
                            "kubectl", "kustomize", REPO.resolve("install").toString())
                    .start();
        } catch (java.io.IOException e) {
            throw new AssertionError("this test needs kubectl 1.21+ (its built-in kustomize) on PATH", e);
        }
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize install/: %s", err).isZero();
        Object parsed = new KubernetesSerialization().unmarshal(new ByteArrayInputStream(out));
        objects = parsed instanceof KubernetesList l ? l.getItems() : castList(parsed);
    }

    @SuppressWarnings("unchecked")
    private static List<HasMetadata> castList(Object o) {
        return new ArrayList<>((List<HasMetadata>) o);
    }

    static <T extends HasMetadata> List<T> all(Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void installsTheGeneratedCrds() {
        Map<String, String> generated = CrdGeneration.generate();
        List<CustomResourceDefinition> crds = all(CustomResourceDefinition.class);
        assertThat(crds).hasSize(generated.size());
        assertThat(crds.stream().map(c -> c.getMetadata().getName()))
                .containsExactlyInAnyOrder(CrdGeneration.KINDS.stream()
                        .map(HasMetadata::getFullResourceName)
                        .toArray(String[]::new));
        for (CustomResourceDefinition crd : crds) {
            assertThat(crd.getSpec().getVersions())
                    .extracting(v -> v.getName() + (v.getStorage() ? " stored" : " served"))
                    .containsExactly("v1beta1 stored", "v1alpha1 served");
        }
    }

    @Test
    void installsBothComponentsWithLocalImagesNeverPulled() {
        Map<String, Deployment> deployments = all(Deployment.class).stream()
                .collect(Collectors.toMap(d -> d.getMetadata().getName(), d -> d));
        assertThat(deployments).containsOnlyKeys("sandboxd-controller", "sandboxd-router");
        assertThat(image(deployments.get("sandboxd-controller"))).isEqualTo("sandboxd-controller:dev");
        assertThat(image(deployments.get("sandboxd-router"))).isEqualTo("sandboxd-router:dev");
        for (Deployment d : deployments.values()) {
            for (Container c : d.getSpec().getTemplate().getSpec().getContainers()) {
                assertThat(c.getImagePullPolicy()).as(d.getMetadata().getName()).isEqualTo("IfNotPresent");
                assertThat(c.getReadinessProbe()).as(d.getMetadata().getName()).isNotNull();
                assertThat(c.getLivenessProbe()).as(d.getMetadata().getName()).isNotNull();
            }
            // The image's non-root user (controller/ and router/Dockerfile: USER 65532).
            assertThat(d.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsUser())
                    .isEqualTo(65532L);
            String sa = d.getSpec().getTemplate().getSpec().getServiceAccountName();
            assertThat(serviceAccount(d.getMetadata().getNamespace(), sa))
                    .as("ServiceAccount %s/%s", d.getMetadata().getNamespace(), sa)
                    .isTrue();
        }
    }

    @Test
    void everyBindingNamesAServiceAccountItInstalls() {
        List<Subject> subjects = new ArrayList<>();
        all(ClusterRoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
        all(RoleBinding.class).forEach(b -> subjects.addAll(b.getSubjects()));
        assertThat(subjects).isNotEmpty();
        for (Subject s : subjects) {
            assertThat(s.getKind()).isEqualTo("ServiceAccount");
            assertThat(serviceAccount(s.getNamespace(), s.getName()))
                    .as("ServiceAccount %s/%s", s.getNamespace(), s.getName())
                    .isTrue();
        }
    }

    static String image(Deployment d) {
        return d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
    }

    static boolean serviceAccount(String namespace, String name) {
        return all(ServiceAccount.class).stream()
                .anyMatch(sa -> sa.getMetadata().getName().equals(name)
                        && sa.getMetadata().getNamespace().equals(namespace));
    }
}
