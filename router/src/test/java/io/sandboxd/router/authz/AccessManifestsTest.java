package io.sandboxd.router.authz;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The roles in deploy/ grant exactly what the scoped authorizer asks (the README quotes them). */
class AccessManifestsTest {
    @SuppressWarnings("unchecked")
    private static List<HasMetadata> load(String file) throws Exception {
        try (InputStream in = Files.newInputStream(Path.of("deploy").resolve(file))) {
            return (List<HasMetadata>) (List<?>) Serialization.unmarshal(in);
        }
    }

    private static void grants(PolicyRule r, Permission p) {
        assertThat(r.getApiGroups()).containsExactly(Permission.GROUP);
        assertThat(r.getResources()).containsExactly(Permission.RESOURCE + "/" + p.subresource);
        assertThat(r.getVerbs()).containsExactly(Permission.VERB);
    }

    @Test
    void accessRolesMatchTheReviewedPermissions() throws Exception {
        List<HasMetadata> objs = load("access.yaml");
        ClusterRole user = (ClusterRole) objs.stream()
                .filter(o -> o.getMetadata().getName().equals("sandboxd-router-user"))
                .findFirst()
                .orElseThrow();
        ClusterRole podIp = (ClusterRole) objs.stream()
                .filter(o -> o.getMetadata().getName().equals("sandboxd-router-pod-ip"))
                .findFirst()
                .orElseThrow();
        grants(user.getRules().get(0), Permission.REACH_SANDBOX);
        grants(podIp.getRules().get(0), Permission.NAME_POD_IP);
        Role example = (Role) load("examples/access-binding.yaml").get(0);
        grants(example.getRules().get(0), Permission.REACH_SANDBOX);
        assertThat(example.getRules().get(0).getResourceNames()).containsExactly("sb-1", "sb-2");
    }
}
