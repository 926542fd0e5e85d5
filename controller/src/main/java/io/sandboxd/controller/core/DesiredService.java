package io.sandboxd.controller.core;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.sandboxd.controller.model.Sandbox;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Pure builder of the headless Service (§2.7). */
public final class DesiredService {
    private DesiredService() {}

    public static Service build(Sandbox sb) {
        String hash = NameHash.of(sb.getMetadata().getName());
        List<ServicePort> ports = ports(sb.getSpec().getPodTemplate().getSpec());
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(sb.getMetadata().getName())
                .withNamespace(sb.getMetadata().getNamespace())
                .withLabels(Map.of(Keys.SANDBOX_NAME_HASH, hash))
                .withOwnerReferences(Ownership.controllerRef(sb))
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withSelector(Map.of(Keys.SANDBOX_NAME_HASH, hash))
                .withPorts(ports.isEmpty() ? null : ports)
                .endSpec()
                .build();
    }

    public static String fqdn(String name, String namespace, String clusterDomain) {
        return name + "." + namespace + ".svc." + clusterDomain;
    }

    /** Ports of every container and native sidecar, deduplicated on (port, protocol), sorted. */
    public static List<ServicePort> ports(PodSpec spec) {
        record Key(int port, String protocol) {}
        List<Container> containers = new ArrayList<>();
        if (spec != null && spec.getContainers() != null) containers.addAll(spec.getContainers());
        if (spec != null && spec.getInitContainers() != null) {
            for (Container c : spec.getInitContainers()) if ("Always".equals(c.getRestartPolicy())) containers.add(c);
        }
        Map<Key, List<String>> names =
                new TreeMap<>(Comparator.comparingInt(Key::port).thenComparing(Key::protocol));
        for (Container c : containers) {
            if (c.getPorts() == null) continue;
            for (ContainerPort p : c.getPorts()) {
                if (p.getContainerPort() == null || p.getContainerPort() == 0) continue;
                String proto = p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
                List<String> candidates =
                        names.computeIfAbsent(new Key(p.getContainerPort(), proto), k -> new ArrayList<>());
                if (p.getName() != null && !p.getName().isEmpty()) candidates.add(p.getName());
            }
        }
        Set<String> taken = new HashSet<>();
        List<ServicePort> out = new ArrayList<>();
        for (var e : names.entrySet()) {
            String name = null;
            for (String n : e.getValue()) {
                if (!taken.contains(n)) {
                    name = n;
                    break;
                }
            }
            if (name == null) {
                String base =
                        "p-" + e.getKey().port() + "-" + e.getKey().protocol().toLowerCase();
                name = base;
                for (int i = 2; taken.contains(name); i++) name = base + "-" + i;
            }
            taken.add(name);
            out.add(new ServicePortBuilder()
                    .withName(name)
                    .withPort(e.getKey().port())
                    .withProtocol(e.getKey().protocol())
                    .withTargetPort(new IntOrString(e.getKey().port()))
                    .build());
        }
        return out;
    }
}
