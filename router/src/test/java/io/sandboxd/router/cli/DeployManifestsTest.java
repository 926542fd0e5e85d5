package io.sandboxd.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The manifests in router/deploy parse as Kubernetes objects and only use flags the router has. */
class DeployManifestsTest {
    static final Path DEPLOY = Path.of("deploy");

    private static List<HasMetadata> load(String file) throws Exception {
        try (InputStream in = Files.newInputStream(DEPLOY.resolve(file))) {
            Object o = Serialization.unmarshal(in);
            List<HasMetadata> out = new ArrayList<>();
            if (o instanceof List<?> l) {
                l.forEach(x -> out.add((HasMetadata) x));
            } else {
                out.add((HasMetadata) o);
            }
            return out;
        }
    }

    @Test
    void deploymentArgsAreValidRouterFlags() throws Exception {
        Deployment d = load("router.yaml").stream()
                .filter(Deployment.class::isInstance)
                .map(Deployment.class::cast)
                .findFirst()
                .orElseThrow();
        List<String> args =
                d.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        RouterMain main = new RouterMain();
        new CommandLine(main).parseArgs(args.toArray(String[]::new));
        assertThat(main.authzMode).isEqualTo("scoped");
        assertThat(main.pathRoutingPrefix).isEqualTo("/router");
        assertThat(d.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getReadinessProbe()
                        .getHttpGet()
                        .getPath())
                .isEqualTo("/readyz");
    }

    @Test
    void cidrFlagsAreParsedStrictlyAndNamedInTheirError() {
        RouterMain main = new RouterMain();
        new CommandLine(main).parseArgs("--deny-cidr", "100.100.100.200/32", "--allow-cidr", "100.64.0.0/10");
        assertThat(main.addressPolicy().denied()).hasToString("[100.100.100.200/32]");
        assertThat(main.addressPolicy().allowed()).hasToString("[100.64.0.0/10]");
        RouterMain bad = new RouterMain();
        new CommandLine(bad).parseArgs("--allow-cidr", "10.0.0.1/8");
        org.assertj.core.api.Assertions.assertThatThrownBy(bad::addressPolicy)
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--deny-cidr/--allow-cidr: CIDR '10.0.0.1/8' has host bits set beyond /8");
    }

    /** The effective rules are on record at start: every built-in class, and both flags' ranges. */
    @Test
    void theDialRulesAreLoggedAtStart() {
        RouterMain main = new RouterMain();
        new CommandLine(main)
                .parseArgs(
                        "--deny-cidr",
                        "100.100.100.200/32",
                        "--deny-cidr",
                        "10.9.0.0/16",
                        "--allow-cidr",
                        "100.64.0.0/10",
                        "--allow-cidr",
                        "fd12:3456::/32",
                        "--allow-loopback-pod-ip");
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(seen, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            main.addressPolicy();
        } finally {
            System.setErr(err);
        }
        String log = seen.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(log)
                .contains("denied ranges (--deny-cidr): [100.100.100.200/32, 10.9.0.0/16]")
                .contains("allowed ranges (--allow-cidr): [100.64.0.0/10, fd12:3456::/32]")
                .contains("loopback allowed in X-Sandbox-Pod-IP (--allow-loopback-pod-ip)");
        for (io.sandboxd.router.vetting.AddressClass c : io.sandboxd.router.vetting.AddressClass.values()) {
            assertThat(log).contains(c.describe());
        }
    }

    @Test
    void rbacGrantsOnlyWhatTheRouterUses() throws Exception {
        ClusterRole role = load("rbac.yaml").stream()
                .filter(ClusterRole.class::isInstance)
                .map(ClusterRole.class::cast)
                .findFirst()
                .orElseThrow();
        assertThat(role.getRules()).hasSize(3);
        assertThat(role.getRules().get(0).getResources()).containsExactly("pods", "services");
        assertThat(role.getRules().get(0).getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
        assertThat(role.getRules().get(1).getResources()).containsExactly("tokenreviews");
        assertThat(role.getRules().get(1).getVerbs()).containsExactly("create");
        assertThat(role.getRules().get(2).getApiGroups()).containsExactly("authorization.k8s.io");
        assertThat(role.getRules().get(2).getResources()).containsExactly("subjectaccessreviews");
        assertThat(role.getRules().get(2).getVerbs()).containsExactly("create");
    }
}
