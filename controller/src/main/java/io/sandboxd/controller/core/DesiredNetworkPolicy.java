package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.networking.v1.IPBlockBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.sandboxd.controller.model.SandboxTemplate;
import java.util.List;
import java.util.Map;

/** The template's NetworkPolicy (as upstream agent-sandbox does): the secure default, or the template's own rules. */
public final class DesiredNetworkPolicy {
    private DesiredNetworkPolicy() {}

    public static final String ROUTER_NAMESPACE = "agent-sandbox-system";
    public static final List<String> IPV4_EXCEPT =
            List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16");
    public static final List<String> IPV6_EXCEPT = List.of("fc00::/7", "fe80::/10");

    public static String name(String template) {
        return template + "-network-policy";
    }

    public static NetworkPolicy build(SandboxTemplate t) {
        return new NetworkPolicyBuilder()
                .withNewMetadata()
                .withName(name(t.getMetadata().getName()))
                .withNamespace(t.getMetadata().getNamespace())
                .withOwnerReferences(Ownership.controllerRef(t))
                .endMetadata()
                .withSpec(spec(t))
                .build();
    }

    public static NetworkPolicySpec spec(SandboxTemplate t) {
        List<NetworkPolicyIngressRule> ingress;
        List<NetworkPolicyEgressRule> egress;
        var custom = t.getSpec().getNetworkPolicy();
        if (custom != null) {
            ingress = custom.getIngress() == null
                    ? List.of()
                    : Copies.deep(custom).getIngress();
            egress =
                    custom.getEgress() == null ? List.of() : Copies.deep(custom).getEgress();
        } else {
            // Ingress only from the sandbox router; egress only to public addresses (RFC 1918, link-local
            // including cloud metadata at 169.254.169.254, ULA and IPv6 link-local are all excluded).
            ingress = List.of(new NetworkPolicyIngressRuleBuilder()
                    .withFrom(new NetworkPolicyPeerBuilder()
                            .withNewNamespaceSelector()
                            .withMatchLabels(Map.of("kubernetes.io/metadata.name", ROUTER_NAMESPACE))
                            .endNamespaceSelector()
                            .withNewPodSelector()
                            .withMatchLabels(Map.of("app", "sandbox-router"))
                            .endPodSelector()
                            .build())
                    .build());
            egress = List.of(new NetworkPolicyEgressRuleBuilder()
                    .withTo(
                            new NetworkPolicyPeerBuilder()
                                    .withIpBlock(new IPBlockBuilder()
                                            .withCidr("0.0.0.0/0")
                                            .withExcept(IPV4_EXCEPT)
                                            .build())
                                    .build(),
                            new NetworkPolicyPeerBuilder()
                                    .withIpBlock(new IPBlockBuilder()
                                            .withCidr("::/0")
                                            .withExcept(IPV6_EXCEPT)
                                            .build())
                                    .build())
                    .build());
        }
        NetworkPolicySpec spec = new NetworkPolicySpec();
        spec.setPodSelector(new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
                .withMatchLabels(Map.of(
                        Keys.TEMPLATE_REF_HASH, NameHash.of(t.getMetadata().getName())))
                .build());
        spec.setPolicyTypes(List.of("Ingress", "Egress"));
        spec.setIngress(ingress);
        spec.setEgress(egress);
        return spec;
    }
}
